// The agentgw playground: a client of the gateway's HTTP API, as an IDE
// plugin is (docs/protocol.md). It lists the agents (GET /agents), reads the
// chosen one's definition (GET /agents/{name}), builds the request from the
// forms, posts it (POST /agents/{name}) and renders the Server-Sent-Events
// answer as it streams: text as Markdown, confirm buttons and trees that
// send what a plugin sends, frontend tool calls answered here, errors.
(function () {
  'use strict';

  const md = window.agentgwMarkdown;
  const $ = (id) => document.getElementById(id);
  // The gateway: the page is served at <gateway>/ui/.
  const base = new URL('..', location.href);
  const tokenKey = 'agentgw.token';

  // ---- the token -------------------------------------------------------

  function token() {
    return sessionStorage.getItem(tokenKey) || '';
  }

  function authHeaders(h) {
    const t = token();
    if (t) {
      h.Authorization = 'Bearer ' + t;
    }
    return h;
  }

  function status(text, bad) {
    const s = $('status');
    s.textContent = text;
    s.className = bad ? 'bad' : '';
  }

  // ---- JSON helpers ----------------------------------------------------

  // GatewayError is a response before any stream: the gateway's
  // ERROR_RESPONSE, or whatever came.
  class GatewayError extends Error {
    constructor(status, body, text) {
      const c = body && body.content;
      super(c && c.message ? c.message : 'HTTP ' + status + ': ' + text.slice(0, 200));
      this.status = status;
      this.content = c || null;
      this.text = text;
    }
  }

  async function getJSON(path) {
    const resp = await fetch(new URL(path, base), { headers: authHeaders({ Accept: 'application/json' }) });
    const text = await resp.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch (e) {
      // not JSON: reported below
    }
    if (!resp.ok || body === null) {
      throw new GatewayError(resp.status, body, text);
    }
    return body;
  }

  // skipValue returns the index just after the JSON value starting at i
  // (after white space) in s.
  function skipValue(s, i) {
    i = skipSpace(s, i);
    let depth = 0;
    for (; i < s.length; i++) {
      const c = s[i];
      if (c === '"') {
        for (i++; i < s.length && s[i] !== '"'; i++) {
          if (s[i] === '\\') {
            i++;
          }
        }
        if (depth === 0) {
          return i + 1;
        }
      } else if (c === '{' || c === '[') {
        depth++;
      } else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          return i + 1;
        }
        if (depth < 0) {
          return i;
        }
      } else if (depth === 0 && (c === ',' || /\s/.test(c))) {
        return i;
      }
    }
    return i;
  }

  function skipSpace(s, i) {
    while (i < s.length && /\s/.test(s[i])) {
      i++;
    }
    return i;
  }

  // rawMember returns the JSON text of member key of the object in s,
  // exactly as it came, or undefined. The state of an action is echoed
  // with it: byte for byte, whatever JSON it is.
  function rawMember(s, key) {
    let i = skipSpace(s, 0);
    if (s[i] !== '{') {
      return undefined;
    }
    i++;
    for (;;) {
      i = skipSpace(s, i);
      if (s[i] !== '"') {
        return undefined;
      }
      const kEnd = skipValue(s, i);
      const k = JSON.parse(s.slice(i, kEnd));
      i = skipSpace(s, kEnd);
      if (s[i] !== ':') {
        return undefined;
      }
      const vStart = skipSpace(s, i + 1);
      const vEnd = skipValue(s, vStart);
      if (k === key) {
        return s.slice(vStart, vEnd);
      }
      i = skipSpace(s, vEnd);
      if (s[i] !== ',') {
        return undefined;
      }
      i++;
    }
  }

  // bodyText is JSON.stringify(obj) with members whose values are raw JSON
  // text appended in order.
  function bodyText(obj, raw) {
    let s = JSON.stringify(obj);
    for (const [k, v] of raw || []) {
      s = s.slice(0, -1) + (s.length > 2 ? ',' : '') + JSON.stringify(k) + ':' + v + '}';
    }
    return s;
  }

  // without returns a copy of a request body without its action and tool
  // results: the body a feedback request starts from.
  function without(body) {
    const b = Object.assign({}, body);
    delete b.action;
    delete b.toolResults;
    return b;
  }

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') {
        e.className = v;
      } else if (k.startsWith('on')) {
        e.addEventListener(k.slice(2), v);
      } else if (v !== undefined && v !== null && v !== false) {
        e.setAttribute(k, v === true ? '' : v);
      }
    }
    for (const c of children) {
      if (c !== null && c !== undefined && c !== false) {
        e.append(c);
      }
    }
    return e;
  }

  // ---- agents and commands -----------------------------------------------

  const defs = new Map(); // agent name -> its definition (GET /agents/{name})

  async function loadAgents() {
    const sel = $('agent');
    const keep = sel.value || sessionStorage.getItem('agentgw.agent') || '';
    sel.replaceChildren();
    defs.clear();
    let list;
    try {
      list = await getJSON('agents');
    } catch (e) {
      status(e.status === 401 ? 'This gateway needs a token: enter it above.' : 'Cannot list the agents: ' + e.message, true);
      return;
    }
    status(token() ? 'Using your token.' : '', false);
    for (const a of list.agents) {
      sel.append(el('option', { value: a.name, title: a.description || '' }, a.name + (a.description ? ' — ' + a.description : '')));
    }
    const probs = $('problems');
    probs.replaceChildren();
    for (const p of list.problems || []) {
      const where = p.file + (p.line ? ':' + p.line + (p.column ? ':' + p.column : '') : '');
      probs.append(el('li', { class: p.severity }, where + ': ' + p.severity + ': ' + p.message));
    }
    probs.hidden = !probs.childElementCount;
    if ([...sel.options].some((o) => o.value === keep)) {
      sel.value = keep;
    }
    await agentChanged();
  }

  async function definition(name) {
    if (!defs.has(name)) {
      defs.set(name, await getJSON('agents/' + encodeURIComponent(name)));
    }
    return defs.get(name);
  }

  async function agentChanged() {
    const name = $('agent').value;
    const sel = $('command');
    sel.replaceChildren();
    delete sel.dataset.agent;
    if (!name) {
      return;
    }
    sessionStorage.setItem('agentgw.agent', name);
    let def;
    try {
      def = await definition(name);
    } catch (e) {
      status('Cannot read agent ' + name + ': ' + e.message, true);
      return;
    }
    for (const c of def.commands || []) {
      sel.append(el('option', { value: c.name }, c.name));
    }
    sel.dataset.agent = name; // whose commands these are
    commandChanged();
  }

  // hasPrompt tells whether the agent's command (as GET /agents/{name}
  // described it) has messageTemplates of its own: only those have a prompt
  // for POST /agents/{name}/prompt to show; asking for another's is a 400.
  function hasPrompt(agentName, command) {
    const def = defs.get(agentName);
    const cmd = def && (def.commands || []).find((c) => c.name === (command || 'default'));
    return !!(cmd && (cmd.messageTemplates || []).length);
  }

  function currentCommand() {
    const def = defs.get($('agent').value);
    return def && (def.commands || []).find((c) => c.name === $('command').value);
  }

  // commandChanged shows what the command declares and ticks the forms of
  // the context variables it collects.
  function commandChanged() {
    const cmd = currentCommand();
    const info = $('command-info');
    info.replaceChildren();
    for (const f of document.querySelectorAll('.var-form')) {
      f.classList.remove('wanted');
      const note = f.querySelector('.wanted-note');
      if (note) {
        note.textContent = '';
      }
      // A variable ticked for the previous command, not by the user.
      if (f.dataset.auto) {
        delete f.dataset.auto;
        f.querySelector('.include').checked = false;
        syncForm(f);
      }
    }
    if (!cmd) {
      return;
    }
    info.append(cmd.description || '');
    const strategy = cmd.contextVariableCollectionStrategy || {};
    const vars = strategy.contextVariables || [];
    if (vars.length) {
      const collects = el('span', { class: 'collects' }, 'Collects: ');
      info.append(collects);
      vars.forEach((v, i) => {
        const opts = v.resolverOptions || v.resolveOptions;
        const text = v.name + (v.required ? ' (required)' : '') + (opts && Object.keys(opts).length ? ' ' + JSON.stringify(opts) : '');
        collects.append(i ? ', ' : '', el('code', {}, text));
        const form = document.querySelector('.var-form[data-var="' + v.name + '"]');
        if (form) {
          form.classList.add('wanted');
          form.querySelector('.wanted-note').textContent = 'collected by this command';
          const box = form.querySelector('.include');
          if (!box.checked) {
            box.checked = true;
            form.dataset.auto = '1';
          }
          syncForm(form);
        }
      });
    }
    const tpl = $('templates');
    const ts = cmd.messageTemplates || [];
    tpl.hidden = !ts.length;
    tpl.querySelector('pre').textContent = ts.map((t) => '[' + t.role + ']\n' + (t.template || t.content || '')).join('\n\n');
  }

  // ---- the forms -----------------------------------------------------------

  function val(id) {
    return $(id).value.trim();
  }

  function lines(id) {
    return $(id).value.split('\n').map((l) => l.trim()).filter((l) => l);
  }

  function syncForm(form) {
    form.classList.toggle('included', form.querySelector('.include').checked);
  }

  function declaredOptions(name) {
    const cmd = currentCommand();
    const v = cmd && ((cmd.contextVariableCollectionStrategy || {}).contextVariables || []).find((x) => x.name === name);
    return (v && (v.resolverOptions || v.resolveOptions)) || {};
  }

  const languages = { go: 'go', js: 'javascript', mjs: 'javascript', ts: 'typescript', tsx: 'typescript', jsx: 'javascript',
    py: 'python', java: 'java', kt: 'kotlin', rs: 'rust', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cs: 'csharp', rb: 'ruby',
    php: 'php', swift: 'swift', sh: 'shell', md: 'markdown', json: 'json', yaml: 'yaml', yml: 'yaml', html: 'html', css: 'css', sql: 'sql' };

  // position returns the UTF-16 index of line:column (both from 1; columns
  // count code points) in text, clamped to the line.
  function position(text, line, col) {
    const ls = text.split('\n');
    let off = 0;
    for (let l = 1; l < Math.min(line, ls.length); l++) {
      off += ls[l - 1].length + 1;
    }
    const cur = Array.from(ls[Math.min(line, ls.length) - 1] || '');
    return off + cur.slice(0, Math.max(col - 1, 0)).join('').length;
  }

  // lineCol is the line and column (from 1, in code points) of the UTF-16
  // index off in text.
  function lineCol(text, off) {
    const before = text.slice(0, off);
    const nl = before.lastIndexOf('\n');
    return [before.split('\n').length, Array.from(before.slice(nl + 1)).length + 1];
  }

  // editorValue builds activeEditor as a plugin does (docs/protocol.md
  // §6): the selection as the editor's positions and the one selected range,
  // the cursor at its end, the text around it as the command's resolver
  // options ask (none without them), about 40 visible lines around it.
  function editorValue() {
    const content = $('ed-content').value;
    const path = val('ed-path');
    let a = position(content, +$('ed-sl').value || 1, +$('ed-sc').value || 1);
    let b = position(content, +$('ed-el').value || 1, +$('ed-ec').value || 1);
    if (b < a) {
      [a, b] = [b, a];
    }
    const [sl, sc] = lineCol(content, a);
    const [el2, ec] = lineCol(content, b);
    const ext = (path.match(/\.([A-Za-z0-9]+)$/) || [])[1] || '';
    const range = { content: content.slice(a, b), startLine: sl, startColumn: sc, endLine: el2, endColumn: ec };
    const opts = declaredOptions('activeEditor');
    if (Number.isInteger(opts.contentBeforeSelectionLines)) {
      range.contentBeforeSelection = content.slice(0, a).split('\n').slice(-(Math.max(opts.contentBeforeSelectionLines, 0) + 1)).join('\n');
    }
    if (Number.isInteger(opts.contentAfterSelectionLines)) {
      range.contentAfterSelection = content.slice(b).split('\n').slice(0, Math.max(opts.contentAfterSelectionLines, 0) + 1).join('\n');
    }
    const all = content.split('\n');
    const first = Math.max(1, Math.min(sl - 20, all.length - 39));
    const last = Math.min(all.length, first + 39);
    const visible = all.slice(first - 1, last).join('\n');
    return {
      filePath: path, language: val('ed-lang') || languages[ext.toLowerCase()] || ext.toLowerCase(), content: content,
      cursorOffset: Array.from(content.slice(0, b)).length,
      startLine: sl, startColumn: sc, endLine: el2, endColumn: ec,
      selectedRanges: [range],
      visibleRange: { content: visible, startLine: first, startColumn: 1, endLine: last, endColumn: Array.from(all[last - 1]).length + 1 },
    };
  }

  function selectionFromTextarea() {
    const t = $('ed-content');
    const [sl, sc] = lineCol(t.value, t.selectionStart);
    const [el2, ec] = lineCol(t.value, t.selectionEnd);
    $('ed-sl').value = sl;
    $('ed-sc').value = sc;
    $('ed-el').value = el2;
    $('ed-ec').value = ec;
  }

  function knowledgeValue() {
    const kb = { knowledgeBaseId: val('kb-id') };
    const refs = [...document.querySelectorAll('#kb-refs .kb-ref')].map((r) => {
      const q = (c) => r.querySelector(c).value;
      return { score: Number(q('.kb-score')), chunk: q('.kb-chunk'),
        metadata: { fileName: q('.kb-file').trim(), sourceType: q('.kb-type'), source: q('.kb-source').trim() } };
    });
    if (refs.length) {
      kb.references = refs;
    }
    return [kb];
  }

  const collectors = {
    activeEditor: editorValue,
    userInfo: () => ({ id: val('user-id'), name: val('user-name'), nickname: val('user-nickname') }),
    vcs: () => ({ type: val('vcs-type') || 'git', branchName: val('vcs-branch'), upstreamBranchName: val('vcs-upstream'),
      remoteUrl: val('vcs-remote'), remotes: lines('vcs-remotes') }),
    knowledgeBase: knowledgeValue,
    globalPrompts: () => lines('gp-rules').map((r) => ({ role: $('gp-role').value, content: r })),
  };

  // emptyForm reports whether nothing was filled in a variable's form: a
  // plugin with nothing to say leaves the variable out.
  function emptyForm(name) {
    const f = document.querySelector('.var-form[data-var="' + name + '"]');
    const filled = [...f.querySelectorAll('input:not(.include), textarea')]
      .filter((i) => i.type !== 'number' && i.id !== 'vcs-type' && !i.classList.contains('kb-score'))
      .some((i) => i.value.trim() !== '');
    return !filled;
  }

  function included(name) {
    return document.querySelector('.var-form[data-var="' + name + '"] .include').checked;
  }

  function parseJSON(id, what) {
    try {
      return JSON.parse($(id).value || 'null');
    } catch (e) {
      throw new Error(what + ' is not JSON: ' + e.message);
    }
  }

  // composeBody is the request the forms describe.
  function composeBody() {
    const vars = [];
    const prompt = $('prompt').value;
    if (prompt !== '') {
      vars.push({ name: 'userInputPrompt', value: prompt });
    }
    for (const [name, collect] of Object.entries(collectors)) {
      if (included(name) && !emptyForm(name)) {
        vars.push({ name: name, value: collect() });
      }
    }
    if (included('raw')) {
      let raw = parseJSON('raw-vars', 'Other context variables');
      if (raw && !Array.isArray(raw) && typeof raw === 'object') {
        raw = Object.entries(raw).map(([name, value]) => ({ name, value }));
      }
      if (!Array.isArray(raw) || raw.some((v) => !v || typeof v.name !== 'string')) {
        throw new Error('Other context variables: give [{"name": ..., "value": ...}] or {"name": value}');
      }
      for (const v of raw) {
        const i = vars.findIndex((x) => x.name === v.name);
        if (i >= 0) {
          vars.splice(i, 1);
        }
        vars.push({ name: v.name, value: v.value });
      }
    }
    const body = { command: $('command').value || 'default', contextVariables: vars };
    if (included('fields')) {
      const extra = parseJSON('raw-fields', 'Other request fields');
      if (!extra || typeof extra !== 'object' || Array.isArray(extra)) {
        throw new Error('Other request fields: give a JSON object');
      }
      Object.assign(body, extra);
    }
    return body;
  }

  // ---- sending and reading the stream -----------------------------------------

  let running = null; // the AbortController of the request in flight

  // send posts a request to agent and renders its answer in a new turn.
  // body is the request as an object; raw holds members whose values are
  // JSON text sent as it is (an echoed state). opts.label says why it was
  // sent; opts.tree is the tree an expand's answer merges into.
  async function send(agentName, body, raw, opts) {
    opts = opts || {};
    if (running) {
      running.abort();
    }
    const ctl = new AbortController();
    running = ctl;
    $('stop').disabled = false;
    $('empty').hidden = true;
    const url = new URL('agents/' + encodeURIComponent(agentName), base);
    const text = bodyText(body, raw);
    const turn = new Turn(agentName, url, text, without(body), opts);
    $('transcript').append(turn.root);
    turn.root.scrollIntoView({ block: 'nearest' });
    try {
      const parsed = JSON.parse(text);
      if (!parsed.action && !parsed.toolResults && hasPrompt(agentName, parsed.command)) {
        // A request that starts a run: first what its prompt will be.
        await turn.preview(url, text, ctl.signal);
      }
      const resp = await fetch(url, {
        method: 'POST', body: text, signal: ctl.signal,
        headers: authHeaders({ 'Content-Type': 'application/json', Accept: 'text/event-stream' }),
      });
      turn.response(resp);
      if (!resp.ok || !(resp.headers.get('Content-Type') || '').startsWith('text/event-stream')) {
        const t = await resp.text();
        let b = null;
        try {
          b = JSON.parse(t);
        } catch (e) {
          // shown as text
        }
        turn.failed(new GatewayError(resp.status, b, t));
        return;
      }
      await readStream(resp.body, (name, data, frame) => turn.frame(name, data, frame));
      turn.ended();
    } catch (e) {
      if (e.name === 'AbortError') {
        turn.note('Stopped.');
      } else {
        turn.failed(e);
      }
    } finally {
      if (running === ctl) {
        running = null;
        $('stop').disabled = true;
      }
      turn.root.classList.add('done');
    }
  }

  // readStream parses Server-Sent-Events from a byte stream as they come
  // and calls onEvent(name, data, frameText) for each; comments (": ping")
  // come as name ":".
  async function readStream(stream, onEvent) {
    const reader = stream.getReader();
    const dec = new TextDecoder();
    let buf = '';
    const flush = (block) => {
      let name = '';
      const data = [];
      let comment = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          comment = true;
          continue;
        }
        const c = line.indexOf(':');
        const field = c < 0 ? line : line.slice(0, c);
        let v = c < 0 ? '' : line.slice(c + 1);
        if (v.startsWith(' ')) {
          v = v.slice(1);
        }
        if (field === 'event') {
          name = v;
        } else if (field === 'data') {
          data.push(v);
        }
      }
      if (data.length) {
        onEvent(name, data.join('\n'), block);
      } else if (comment) {
        onEvent(':', '', block);
      }
    };
    for (;;) {
      const { value, done } = await reader.read();
      buf += dec.decode(value || new Uint8Array(), { stream: !done });
      buf = buf.replace(/\r\n/g, '\n');
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        flush(buf.slice(0, i));
        buf = buf.slice(i + 2);
      }
      if (done) {
        if (buf.trim()) {
          flush(buf);
        }
        return;
      }
    }
  }

  // ---- one request and its answer -------------------------------------------------

  class Turn {
    constructor(agentName, url, text, origin, opts) {
      this.agent = agentName;
      this.origin = origin; // the body feedback starts from
      this.opts = opts;
      this.text = '';
      this.calls = [];
      this.frames = 0;
      this.pings = 0;
      this.terminated = false;
      this.answer = el('div', { class: 'answer markdown' });
      this.actions = el('div', { class: 'actions' });
      this.log = el('pre', { class: 'frames' });
      this.statusLine = el('span', { class: 'turn-status' }, 'sending…');
      const headers = 'POST ' + url.pathname + '\nContent-Type: application/json\nAccept: text/event-stream' +
        (token() ? '\nAuthorization: Bearer ••••••' : '');
      this.root = el('article', { class: 'turn' },
        el('header', {}, el('strong', {}, agentName), ' ', el('code', {}, JSON.parse(text).command || 'default'),
          opts.label ? el('span', { class: 'why' }, ' · ' + opts.label) : null, ' ', this.statusLine),
        el('details', { class: 'request' }, el('summary', {}, 'Request sent'),
          el('pre', { class: 'headers' }, headers), el('pre', { class: 'body' }, text)),
        this.answer, this.actions,
        el('details', { class: 'stream' }, el('summary', {}, 'Stream as received'), this.log));
    }

    // preview shows the body the command's own prompt sends the model, as
    // POST /agents/{name}/prompt builds it for the same request.
    async preview(url, text, signal) {
      const box = el('pre', { class: 'body' }, 'asking the gateway…');
      this.root.insertBefore(el('details', { class: 'prompt' }, el('summary', {}, 'Prompt sent upstream'), box), this.answer);
      try {
        const resp = await fetch(new URL(url.href + '/prompt'), {
          method: 'POST', body: text, signal,
          headers: authHeaders({ 'Content-Type': 'application/json' }),
        });
        const t = await resp.text();
        if (resp.ok) {
          box.textContent = JSON.stringify(JSON.parse(t), null, 2);
          return;
        }
        let msg = t;
        try {
          const b = JSON.parse(t);
          msg = b.content.message;
        } catch (e) {
          // shown as it came
        }
        box.textContent = 'None: ' + msg;
      } catch (e) {
        if (e.name === 'AbortError') {
          throw e;
        }
        box.textContent = 'None: ' + e.message;
      }
    }

    response(resp) {
      this.statusLine.textContent = 'HTTP ' + resp.status + (resp.headers.get('X-Request-Id') ? ' · request ' + resp.headers.get('X-Request-Id') : '');
    }

    note(text) {
      this.actions.append(el('p', { class: 'note' }, text));
    }

    frame(name, data, frame) {
      if (name === ':') {
        this.pings++;
        return;
      }
      this.frames++;
      this.log.append(frame + '\n\n');
      if (name === '') {
        if (data === '[DONE]' || data === '[Done]') {
          this.terminated = true;
          return;
        }
        let chunk;
        try {
          chunk = JSON.parse(data);
        } catch (e) {
          this.note('A frame that is not JSON: ' + data.slice(0, 200));
          return;
        }
        for (const c of chunk.choices || []) {
          if (c.delta && typeof c.delta.content === 'string' && c.delta.content) {
            this.text += c.delta.content;
            this.answer.innerHTML = md(this.text);
          }
          if (c.finish_reason) {
            this.finish = c.finish_reason;
          }
        }
        return;
      }
      let obj;
      try {
        obj = JSON.parse(data);
      } catch (e) {
        this.note('A ' + name + ' frame that is not JSON: ' + data.slice(0, 200));
        return;
      }
      if (name === 'copilot_action') {
        this.action(obj, rawMember(data, 'state'));
      } else if (name === 'copilot_error') {
        this.actions.append(errorBox(obj, null));
      } else if (name === 'copilot_tool_call') {
        this.calls.push(obj);
      } else {
        this.note('Event ' + name + ' (see the stream).');
      }
    }

    action(a, rawState) {
      if (a.action === 'tree' && this.opts.tree && a.data && a.data.treeId === this.opts.tree.treeId) {
        const n = this.opts.tree.merge(a, rawState, this);
        this.note('Added ' + n + ' node' + (n === 1 ? '' : 's') + ' to tree ' + a.data.treeId + ' above.');
        return;
      }
      if (a.action === 'confirm') {
        this.actions.append(confirmBox(a, rawState, this));
      } else if (a.action === 'tree') {
        this.actions.append(new Tree(a, rawState, this).root);
      } else {
        this.note('An action of kind ' + a.action + ' (see the stream).');
      }
    }

    ended() {
      const bits = [this.statusLine.textContent, this.frames + ' frames'];
      if (this.pings) {
        bits.push(this.pings + ' keep-alive');
      }
      if (this.finish) {
        bits.push('finish ' + this.finish);
      }
      this.statusLine.textContent = bits.join(' · ');
      if (!this.terminated) {
        this.actions.append(el('p', { class: 'error-text' }, 'The stream ended without its terminator (data: [DONE]).'));
      }
      if (this.calls.length) {
        this.actions.append(toolCallsBox(this.calls, this));
      }
    }

    failed(e) {
      this.statusLine.textContent = e.status ? 'HTTP ' + e.status : 'failed';
      if (e.content) {
        this.actions.append(errorBox(e.content, e.status));
      } else {
        this.actions.append(el('div', { class: 'error' }, el('strong', {}, 'Request failed'), el('p', {}, e.message)));
      }
    }

    // followUp sends what a button or gesture with a command or a prompt
    // sends: a normal request, without the action or tool results, with
    // that command (and no prompt: nothing was typed for it) or with that
    // prompt as userInputPrompt (to the named command, else default).
    followUp(command, prompt, label) {
      const b = without(this.origin);
      b.contextVariables = (b.contextVariables || []).filter((v) => v.name !== 'userInputPrompt');
      if (prompt !== undefined && prompt !== null && prompt !== '') {
        b.contextVariables.unshift({ name: 'userInputPrompt', value: prompt });
        b.command = command || 'default';
      } else {
        b.command = command || 'default';
      }
      return send(this.agent, b, null, { label: label });
    }

    // feedback sends action feedback: the body of the request that brought
    // the action plus "action", its state echoed as it came.
    feedback(actionRaw, label, opts) {
      return send(this.agent, without(this.origin), [['action', actionRaw]], Object.assign({ label: label }, opts));
    }
  }

  // consentOf tells a consent prompt (the pause of a USER_CONSENT tool)
  // from another confirm: its signed state names the step tool-consent.
  // The state stays opaque to the protocol; this only labels the box.
  function consentOf(state) {
    if (typeof state !== 'string') {
      return false;
    }
    const part = state.split('.')[1];
    try {
      return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))).s === 'tool-consent';
    } catch (e) {
      return false;
    }
  }

  function confirmBox(a, rawState, turn) {
    const d = a.data || {};
    const consent = consentOf(a.state);
    const box = el('div', { class: 'confirm' + (consent ? ' consent' : '') },
      consent ? el('span', { class: 'badge' }, 'consent') : null,
      d.message ? el('p', {}, d.message) : null);
    const done = (how) => {
      for (const b of box.querySelectorAll('button')) {
        b.disabled = true;
      }
      box.append(el('span', { class: 'chosen' }, how));
    };
    if (d.command || d.prompt) {
      const what = d.prompt ? 'asks: ' + d.prompt : 'runs command ' + d.command;
      box.append(el('button', { type: 'button', class: 'confirm-accept', title: what, onclick: () => {
        done('sent');
        turn.followUp(d.command, d.prompt, d.title);
      } }, d.title || 'OK'), el('span', { class: 'muted small' }, ' ' + what));
    } else {
      const fb = (accepted) => '{"action":"confirm","state":' + rawState + ',"accepted":' + accepted + '}';
      box.append(
        el('button', { type: 'button', class: 'confirm-accept primary', onclick: () => {
          done('accepted');
          turn.feedback(fb(true), 'accepted ' + JSON.stringify(d.title || ''));
        } }, d.title || 'Accept'),
        el('button', { type: 'button', class: 'confirm-dismiss', onclick: () => {
          done('dismissed');
          turn.feedback(fb(false), 'dismissed ' + JSON.stringify(d.title || ''));
        } }, 'Dismiss'));
    }
    return box;
  }

  // Tree is a tree action on the page: its nodes nested under rootPId,
  // expanded and clicked as its nodeActions say; the answers to an expand
  // with the same treeId are merged into it (lazy loading).
  class Tree {
    constructor(a, rawState, turn) {
      const d = a.data || {};
      this.treeId = d.treeId;
      this.rootPId = d.rootPId;
      this.nodes = (d.nodes || []).slice();
      this.nodeActions = (d.nodeActions || []).slice();
      this.rawState = rawState;
      this.turn = turn;
      this.open = new Set();
      this.root = el('div', { class: 'tree', 'data-tree-id': d.treeId || '' });
      this.render();
    }

    gesture(node, kind) {
      return this.nodeActions.find((na) => na.nodeType === node.type && na.nodeAction === kind);
    }

    children(id) {
      return this.nodes.filter((n) => n.pId === id && n.id !== id);
    }

    merge(a, rawState, turn) {
      const d = a.data || {};
      let added = 0;
      for (const n of d.nodes || []) {
        const i = this.nodes.findIndex((x) => x.id === n.id);
        if (i >= 0) {
          this.nodes[i] = n;
        } else {
          this.nodes.push(n);
          added++;
        }
        if (n.pId !== undefined) {
          this.open.add(n.pId);
        }
      }
      for (const na of d.nodeActions || []) {
        const i = this.nodeActions.findIndex((x) => x.nodeType === na.nodeType && x.nodeAction === na.nodeAction);
        if (i >= 0) {
          this.nodeActions[i] = na;
        } else {
          this.nodeActions.push(na);
        }
      }
      // The latest state: the gateway signs a tree's state for the tree,
      // and the latest expires last; feedback goes with its request.
      this.rawState = rawState;
      this.turn = turn;
      this.render();
      return added;
    }

    render() {
      const seen = new Set();
      const list = (pid) => {
        const ul = el('ul', {});
        for (const n of this.children(pid)) {
          if (seen.has(n)) {
            continue;
          }
          seen.add(n);
          ul.append(this.item(n, list));
        }
        return ul;
      };
      this.root.replaceChildren(el('div', { class: 'tree-title' }, 'tree ', el('code', {}, String(this.treeId))), list(this.rootPId));
    }

    item(n, list) {
      const id = String(n.id);
      const expand = this.gesture(n, 'expand');
      const click = this.gesture(n, 'click');
      const kids = this.children(n.id).length > 0;
      const isOpen = this.open.has(n.id);
      const li = el('li', { 'data-node-id': id, class: isOpen ? 'open' : '' });
      const toggle = (expand || kids)
        ? el('button', { type: 'button', class: 'toggle', 'aria-expanded': isOpen ? 'true' : 'false',
          title: kids ? (isOpen ? 'collapse' : 'expand') : 'expand (asks the agent)', onclick: () => this.expand(n, expand) }, isOpen ? '▾' : '▸')
        : el('span', { class: 'toggle leaf' }, '·');
      const name = click
        ? el('button', { type: 'button', class: 'node-name link', onclick: () => this.gestureOn(n, click) }, n.name || id)
        : el('span', { class: 'node-name' }, n.name || id);
      li.append(el('div', { class: 'node' }, toggle, name,
        n.type ? el('span', { class: 'node-type' }, n.type) : null,
        n.description ? el('span', { class: 'node-desc' }, n.description) : null,
        ...(Array.isArray(n.labels) ? n.labels.map((l) => el('span', { class: 'label' }, String(l))) : [])));
      if (isOpen && kids) {
        li.append(list(n.id));
      }
      return li;
    }

    expand(n, gesture) {
      if (this.children(n.id).length) {
        if (this.open.has(n.id)) {
          this.open.delete(n.id);
        } else {
          this.open.add(n.id);
        }
        this.render();
        return;
      }
      if (gesture) {
        this.gestureOn(n, gesture);
      }
    }

    // gestureOn sends what the gesture says: a request with its command or
    // prompt, else feedback naming the tree, the node and the gesture.
    gestureOn(n, gesture) {
      const label = gesture.nodeAction + ' ' + JSON.stringify(n.name || n.id);
      if (gesture.command || gesture.prompt || gesture.promptByNodeProperty) {
        let prompt = gesture.prompt;
        if (gesture.promptByNodeProperty) {
          const v = n[gesture.promptByNodeProperty];
          prompt = typeof v === 'string' ? v : JSON.stringify(v);
        }
        return this.turn.followUp(gesture.command, prompt, label);
      }
      const raw = '{"action":"tree","state":' + this.rawState + ',"treeId":' + JSON.stringify(this.treeId) +
        ',"nodeId":' + JSON.stringify(typeof n.id === 'string' ? n.id : JSON.stringify(n.id)) +
        ',"nodeAction":' + JSON.stringify(gesture.nodeAction) + ',"node":' + JSON.stringify(n) + '}';
      return this.turn.feedback(raw, label, gesture.nodeAction === 'expand' ? { tree: this } : {});
    }
  }

  function errorBox(e, httpStatus) {
    return el('div', { class: 'error' },
      el('strong', {}, (e.errorCode || 'ERROR') + (httpStatus ? ' (HTTP ' + httpStatus + ')' : '')),
      e.upstreamStatus ? el('span', { class: 'muted' }, ' upstream status ' + e.upstreamStatus) : null,
      el('p', { class: 'error-message' }, e.message || ''),
      e.suggestedAction ? el('p', { class: 'suggested' }, 'Suggested: ' + e.suggestedAction) : null,
      el('p', { class: 'muted small' }, [e.recoverable ? 'recoverable' : 'not recoverable',
        e.source ? 'source ' + e.source : '', e.requestId || (e.details && e.details.requestId) ? 'request ' + (e.requestId || e.details.requestId) : '']
        .filter((x) => x).join(' · ')));
  }

  // toolCallsBox asks the user to answer the frontend tool calls of an
  // answer, then sends their results together, as a plugin does: the body
  // of the request that brought them plus "toolResults".
  function toolCallsBox(calls, turn) {
    const box = el('div', { class: 'toolcalls' }, el('strong', {}, 'The agent asks this page to run ' +
      (calls.length === 1 ? 'a tool' : calls.length + ' tools') + ' (frontend tools run in the IDE; answer for it):'));
    const rows = calls.map((c) => {
      const content = el('textarea', { class: 'tool-result', rows: '4', spellcheck: 'false' });
      const p = c.parameters || {};
      if (typeof p.path === 'string' && val('ed-path') && val('ed-path').endsWith(p.path)) {
        content.value = $('ed-content').value;
      }
      const statusSel = el('select', { class: 'tool-status' }, ...['SUCCESS', 'ERROR', 'TIMEOUT'].map((s) => el('option', {}, s)));
      box.append(el('div', { class: 'toolcall', 'data-call-id': c.callId },
        el('div', {}, el('code', {}, c.name), ' ', el('code', { class: 'muted' }, JSON.stringify(p))),
        c.userPrompt ? el('p', { class: 'consent-q' }, c.userPrompt) : null,
        el('label', { class: 'block' }, 'Result content', content),
        el('label', {}, 'status ', statusSel),
        el('span', { class: 'muted small' }, ' fallback ' + (c.fallbackBehavior || 'ABORT'))));
      return { call: c, content, statusSel };
    });
    const results = (decline) => rows.map(({ call, content, statusSel }) => {
      const st = decline ? 'ERROR' : statusSel.value;
      const r = { callId: call.callId, status: st };
      if (decline) {
        r.error = { code: 'DECLINED', message: 'the user declined' };
      } else if (st === 'SUCCESS') {
        r.result = { content: content.value };
      } else {
        r.error = { code: st === 'TIMEOUT' ? 'TIMEOUT' : 'TOOL_FAILED', message: content.value || 'failed in the IDE' };
      }
      r.executionTime = 0;
      return r;
    });
    const done = () => {
      for (const b of box.querySelectorAll('button, textarea, select')) {
        b.disabled = true;
      }
    };
    box.append(el('div', { class: 'row' },
      el('button', { type: 'button', class: 'primary tool-send', onclick: () => {
        done();
        const b = without(turn.origin);
        b.toolResults = results(false);
        send(turn.agent, b, null, { label: 'tool results' });
      } }, 'Send the results'),
      el('button', { type: 'button', class: 'tool-decline', onclick: () => {
        done();
        const b = without(turn.origin);
        b.toolResults = results(true);
        send(turn.agent, b, null, { label: 'tools declined' });
      } }, 'Decline')));
    return box;
  }

  // ---- wiring ------------------------------------------------------------

  function init() {
    $('token').value = token();
    $('token-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const t = $('token').value.trim();
      if (t) {
        sessionStorage.setItem(tokenKey, t);
      } else {
        sessionStorage.removeItem(tokenKey);
      }
      loadAgents();
    });
    $('token-forget').addEventListener('click', () => {
      sessionStorage.removeItem(tokenKey);
      $('token').value = '';
      loadAgents();
    });
    $('agent').addEventListener('change', agentChanged);
    $('command').addEventListener('change', commandChanged);
    for (const f of document.querySelectorAll('.var-form')) {
      const box = f.querySelector('.include');
      box.addEventListener('change', () => {
        delete f.dataset.auto;
        syncForm(f);
      });
      // Typing in a form includes its variable, for every command.
      f.querySelector('.fields').addEventListener('input', () => {
        delete f.dataset.auto;
        box.checked = true;
        syncForm(f);
      });
      syncForm(f);
    }
    for (const ev of ['select', 'keyup', 'mouseup']) {
      $('ed-content').addEventListener(ev, selectionFromTextarea);
    }
    $('kb-add').addEventListener('click', () => {
      const ref = $('kb-ref').content.firstElementChild.cloneNode(true);
      ref.querySelector('.kb-remove').addEventListener('click', () => ref.remove());
      $('kb-refs').append(ref);
      const f = document.querySelector('.var-form[data-var="knowledgeBase"]');
      f.querySelector('.include').checked = true;
      syncForm(f);
    });
    $('send').addEventListener('click', () => {
      $('compose-error').textContent = '';
      let body;
      try {
        body = composeBody();
      } catch (e) {
        $('compose-error').textContent = e.message;
        return;
      }
      if (!$('agent').value) {
        $('compose-error').textContent = 'No agent to send to: list the agents first (a token?).';
        return;
      }
      send($('agent').value, body, null, {});
    });
    $('stop').addEventListener('click', () => running && running.abort());
    $('clear').addEventListener('click', () => {
      for (const t of document.querySelectorAll('#transcript .turn')) {
        t.remove();
      }
      $('empty').hidden = false;
    });
    loadAgents();
  }

  init();
})();
