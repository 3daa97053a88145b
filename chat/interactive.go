package chat

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
)

// converse sends body, then offers the answer's actions as numbered choices
// and sends what the user picks, until an answer has no actions, the user
// quits, or a request fails (its error ends the session, as without choices).
//
// What a choice sends (docs/protocol.md §5), and how chat fills the
// gaps:
//   - a button or gesture with a command: a normal request for that command,
//     its context collected again for that command's strategy, without the
//     first request's prompt (nothing was typed for it);
//   - with a prompt, or a node property named by promptByNodeProperty (a
//     string as it is, another JSON value as its JSON text): a normal
//     request with that userInputPrompt, to the command named beside it if
//     any (the gateway never sends both), else to the default command;
//   - with neither: feedback, the body of the request whose answer carried
//     the action (without its own "action" or "toolResults") plus the action
//     object, its state echoed as received;
//     a confirm offers accepting and dismissing; nodeId is the node's id as
//     text;
//   - an expand answered with the same treeId is merged (see nextRound);
//     the merged tree's feedback uses the latest state and request.
func (c *chatClient) converse(ctx context.Context, body map[string]any) error {
	var picked *choice
	for {
		acts, origin, err := c.exchange(ctx, body)
		if err != nil || ctx.Err() != nil {
			return err
		}
		next := nextRound(acts, baseBody(origin), picked)
		if len(next) == 0 {
			return nil
		}
		picked, err = c.choose(ctx, showChoices(c.out, next))
		if picked == nil || err != nil {
			return err
		}
		if body, err = c.requestFor(ctx, picked); err != nil {
			return err
		}
	}
}

// choose reads choices until one can be sent; nil when the user quits (an
// empty line, q, the end of the input or an interrupt).
func (c *chatClient) choose(ctx context.Context, m *menu) (*choice, error) {
	for {
		fmt.Fprint(c.out, "> ")
		line, err := c.in.next(ctx)
		switch {
		case ctx.Err() != nil || errors.Is(err, io.EOF):
			fmt.Fprintln(c.out)
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("reading your choice: %w", err)
		}
		if c.in.echo {
			fmt.Fprintln(c.out, line)
		}
		line = strings.TrimSpace(line)
		if line == "" || line == "q" || line == "Q" {
			return nil, nil
		}
		n, err := strconv.Atoi(line)
		if err != nil || n < 1 || n > len(m.choices) {
			fmt.Fprintf(c.out, "  %q is not a choice: type 1 to %d, or q to quit\n", line, len(m.choices))
			continue
		}
		ch := m.choices[n-1]
		if ch.problem != "" {
			fmt.Fprintf(c.out, "  %s; pick another\n", ch.problem)
			continue
		}
		return ch, nil
	}
}

// requestFor builds the request a choice sends: the feedback body (the
// request that brought the action, already without its "action" and
// "toolResults", plus the action object), or a normal request with the
// choice's command and prompt.
func (c *chatClient) requestFor(ctx context.Context, ch *choice) (map[string]any, error) {
	if ch.feedback != nil {
		b := maps.Clone(ch.from.origin)
		b["action"] = ch.feedback
		return b, nil
	}
	return c.request(ctx, ch.command, ch.prompt)
}

// lineReader reads the user's choices a line at a time, giving up when the
// context ends even while a terminal read is blocked.
type lineReader struct {
	br *bufio.Reader
	// echo prints what was read after the prompt, for input that a
	// terminal does not echo.
	echo bool
	// eof is set once the input ended after a last line without a newline.
	eof bool
}

func newLineReader(r io.Reader, echo bool) *lineReader {
	return &lineReader{br: bufio.NewReader(r), echo: echo}
}

// next returns the next line without its line ending; io.EOF at the end.
func (l *lineReader) next(ctx context.Context) (string, error) {
	if l.eof {
		return "", io.EOF
	}
	type result struct {
		line string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		s, err := l.br.ReadString('\n')
		got <- result{s, err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-got:
		if errors.Is(r.err, io.EOF) && r.line != "" {
			l.eof, r.err = true, nil
		}
		return strings.TrimRight(r.line, "\r\n"), r.err
	}
}
