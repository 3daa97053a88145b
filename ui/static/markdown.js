// A small Markdown renderer for the playground: headings, paragraphs, fenced
// and indented code, lists, block quotes, rules, and inline code, bold,
// italics and links. Everything from the text is HTML-escaped first; only
// the tags made here are markup, and links keep only http(s), mailto and
// relative targets. It runs in the page (window.agentgwMarkdown) and in Node
// for its golden tests (module.exports).
(function (root) {
  'use strict';

  const escapes = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  function escapeHTML(s) {
    return String(s).replace(/[&<>"']/g, (c) => escapes[c]);
  }

  // safeURL keeps a link target the page may follow, else returns ''. A
  // browser drops the control characters and spaces around a URL and the
  // tabs and newlines within it before it reads the scheme, so
  // "\u0001javascript:" is a javascript: URL: every control character
  // (C0, DEL, C1) and every whitespace is removed first, and the target
  // kept is the one checked. Only http:, https:, mailto: and relative
  // targets (no scheme) are kept.
  function safeURL(url) {
    const u = url.replace(/[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/g, '');
    if (/^(https?:|mailto:)/i.test(u) || !/^[a-z][a-z0-9+.-]*:/i.test(u)) {
      return u;
    }
    return '';
  }

  // inline renders the spans of one block of text.
  function inline(text) {
    const out = [];
    // Code spans first: their content is literal.
    const parts = text.split(/(`+)([\s\S]*?[^`])\1(?!`)/);
    for (let i = 0; i < parts.length; i++) {
      if (i % 3 === 0) {
        out.push(emphasis(parts[i]));
      } else if (i % 3 === 2) {
        out.push('<code>' + escapeHTML(parts[i].replace(/^ (.*) $/, '$1')) + '</code>');
      }
    }
    return out.join('');
  }

  function emphasis(text) {
    let s = escapeHTML(text);
    // Links: [label](url), the url as escaped above (quotes are entities).
    s = s.replace(/\[([^\]]+)\]\(((?:[^()\s]|\([^()\s]*\))+)\)/g, (m, label, url) => {
      const href = safeURL(url.replace(/&amp;/g, '&'));
      if (!href) {
        return label;
      }
      return '<a href="' + escapeHTML(href) + '" rel="noopener noreferrer" target="_blank">' + label + '</a>';
    });
    s = s.replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>');
    s = s.replace(/__(?=\S)([\s\S]*?\S)__/g, '<strong>$1</strong>');
    s = s.replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\w)/g, '$1<em>$2</em>');
    s = s.replace(/(^|[^_\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1<em>$2</em>');
    s = s.replace(/ {2,}\n/g, '<br>\n');
    return s;
  }

  const fence = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
  const heading = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const rule = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
  const bullet = /^( {0,3})([-*+])\s+(.*)$/;
  const ordered = /^( {0,3})(\d{1,9})[.)]\s+(.*)$/;
  const quote = /^ {0,3}> ?(.*)$/;

  // render turns Markdown text into HTML.
  function render(md) {
    const lines = String(md).replace(/\r\n?/g, '\n').split('\n');
    const out = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (line.trim() === '') {
        i++;
      } else if ((m = fence.exec(line))) {
        const close = m[1];
        const lang = m[2];
        const body = [];
        i++;
        while (i < lines.length && !(lines[i].trim().startsWith(close[0].repeat(close.length)) &&
            lines[i].trim().replace(new RegExp('^\\' + close[0] + '+'), '').trim() === '')) {
          body.push(lines[i]);
          i++;
        }
        i++; // the closing fence, or the end of an unclosed block
        const cls = lang ? ' class="language-' + escapeHTML(lang) + '"' : '';
        out.push('<pre><code' + cls + '>' + escapeHTML(body.join('\n')) + '</code></pre>');
      } else if ((m = heading.exec(line))) {
        const n = m[1].length;
        out.push('<h' + n + '>' + inline(m[2]) + '</h' + n + '>');
        i++;
      } else if (rule.test(line)) {
        out.push('<hr>');
        i++;
      } else if (quote.test(line)) {
        const body = [];
        while (i < lines.length && (m = quote.exec(lines[i]))) {
          body.push(m[1]);
          i++;
        }
        out.push('<blockquote>' + render(body.join('\n')) + '</blockquote>');
      } else if (bullet.test(line) || ordered.test(line)) {
        i = list(lines, i, out);
      } else if (/^( {4}|\t)/.test(line)) {
        const body = [];
        while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || lines[i].trim() === '')) {
          body.push(lines[i].replace(/^( {4}|\t)/, ''));
          i++;
        }
        while (body.length && body[body.length - 1].trim() === '') {
          body.pop();
        }
        out.push('<pre><code>' + escapeHTML(body.join('\n')) + '</code></pre>');
      } else {
        const body = [];
        while (i < lines.length && lines[i].trim() !== '' && !fence.test(lines[i]) && !heading.test(lines[i]) &&
            !quote.test(lines[i]) && !bullet.test(lines[i]) && !ordered.test(lines[i]) && !rule.test(lines[i])) {
          body.push(lines[i]);
          i++;
        }
        out.push('<p>' + inline(body.join('\n')) + '</p>');
      }
    }
    return out.join('\n');
  }

  // list renders the list starting at lines[i] and returns the index after
  // it. Lines indented under an item (two spaces or more) belong to it, and
  // so do unindented lines that continue its paragraph.
  function list(lines, i, out) {
    const isOrdered = !bullet.test(lines[i]);
    const marker = isOrdered ? ordered : bullet;
    const first = marker.exec(lines[i]);
    const items = [];
    let m;
    while (i < lines.length && !/^ {4}/.test(lines[i]) && (m = marker.exec(lines[i]))) {
      const body = [m[3]];
      i++;
      while (i < lines.length) {
        const l = lines[i];
        if (l.trim() === '') {
          if (i + 1 < lines.length && /^ {2,}\S/.test(lines[i + 1])) {
            body.push('');
            i++;
            continue;
          }
          break;
        }
        if (/^ {2,}/.test(l)) {
          body.push(l.replace(/^ {2,4}/, ''));
          i++;
          continue;
        }
        if (bullet.test(l) || ordered.test(l) || fence.test(l) || heading.test(l) || quote.test(l) || rule.test(l)) {
          break;
        }
        body.push(l);
        i++;
      }
      const inner = body.join('\n');
      const blocks = render(inner);
      const simple = /^<p>[\s\S]*<\/p>$/.test(blocks) && blocks.indexOf('</p>') === blocks.length - 4;
      items.push('<li>' + (simple ? inline(inner) : blocks.replace(/^<p>([\s\S]*?)<\/p>/, '$1')) + '</li>');
      if (i + 1 < lines.length && lines[i].trim() === '' && marker.test(lines[i + 1]) && !/^ {4}/.test(lines[i + 1])) {
        i++; // a blank line between items
      }
    }
    const start = isOrdered && first[2] !== '1' ? ' start="' + Number(first[2]) + '"' : '';
    out.push(isOrdered ? '<ol' + start + '>' + items.join('') + '</ol>' : '<ul>' + items.join('') + '</ul>');
    return i;
  }

  render.escapeHTML = escapeHTML;
  root.agentgwMarkdown = render;
  if (typeof module !== 'undefined' && module.exports) {
    module.exports = render;
  }
})(typeof window !== 'undefined' ? window : globalThis);
