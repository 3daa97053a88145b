package remote_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
)

// replay is a transport answering every request with status and body,
// read in pieces of at most split bytes.
type replay struct {
	status int
	body   []byte
	split  int
}

func (r replay) RoundTrip(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	return &http.Response{
		StatusCode: r.status, Request: req, ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:   io.NopCloser(&pieces{data: r.body, n: r.split}),
	}, nil
}

// pieces reads data at most n bytes at a time.
type pieces struct {
	data []byte
	n    int
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), p.n)], p.data)
	p.data = p.data[n:]
	return n, nil
}

// checkingSink fails the test on a chunk over the frame limit or an action
// that does not validate.
type checkingSink struct {
	t   *testing.T
	max int
}

func (s checkingSink) Chunk(raw []byte) error {
	if len(raw) == 0 || len(raw) > s.max {
		s.t.Fatalf("a chunk of %d bytes (limit %d)", len(raw), s.max)
	}
	return nil
}

func (s checkingSink) Action(a *actions.Action) error {
	if err := a.Validate(); err != nil {
		s.t.Fatalf("an invalid action was passed on: %v", err)
	}
	if _, err := a.MarshalJSON(); err != nil {
		s.t.Fatalf("an action that cannot be written was passed on: %v", err)
	}
	return nil
}

func (s checkingSink) Error(e *apierr.Error) error {
	if e.Code == "" || e.Origin() != apierr.SourceUpstream || len(e.Message) > 4096 {
		s.t.Fatalf("error frame %s", describe(e))
	}
	return nil
}

// FuzzForward: whatever a remote sends, Forward neither panics nor passes
// on a frame over the limit or an invalid action, and fails only with an
// *apierr.Error from upstream.
func FuzzForward(f *testing.F) {
	for _, s := range []string{
		": ping\n\n" + chunk("x") + "event: copilot_error\ndata: {\"errorCode\":\"E\",\"message\":\"m\"}\n\ndata: [DONE]\n\n",
		"data: {\"id\":1,\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: {\"error\":{\"message\":\"e\"}}\r\r",
		"event: copilot_action\ndata: {\"action\":\"tree\",\"state\":{},\"data\":{\"treeId\":\"t\",\"rootPId\":\"0\",\"nodes\":[{\"id\":\"n\",\"pId\":\"0\",\"type\":\"f\",\"name\":\"n\",\"description\":\"\",\"labels\":[]}],\"nodeActions\":[{\"nodeType\":\"f\",\"nodeAction\":\"expand\"}]}}\n\n",
		"data: " + string(bytes.Repeat([]byte("y"), 300)) + "\n\n",
		"event: error\ndata: {}\n\nevent: other\ndata: x\n\n",
	} {
		f.Add([]byte(s), uint16(0), uint8(7))
	}
	f.Add([]byte(chunk("a")+endChunk+llmtest.Done), uint16(200), uint8(255))
	f.Add([]byte("event: copilot_action\ndata: {\"action\":\"confirm\",\"data\":{\"title\":\"t\",\"message\":\"m\"}}\n\ndata: [Done]\n"), uint16(200), uint8(3))
	f.Add([]byte(`{"type":"ERROR_RESPONSE","content":{"errorCode":"X","message":"m"}}`), uint16(404), uint8(16))
	const max = 256
	f.Fuzz(func(t *testing.T, body []byte, status uint16, split uint8) {
		c, err := remote.New(remote.Config{
			HTTPClient:   &http.Client{Transport: replay{status: 200 + int(status)%400, body: body, split: int(split) + 1}},
			MaxFrameSize: max,
		})
		if err != nil {
			t.Fatal(err)
		}
		err = c.Forward(context.Background(), "http://remote.test", "a", []byte(`{}`), nil, checkingSink{t: t, max: max})
		if err == nil {
			return
		}
		e := asAgentError(err)
		if e == nil || e.Code == "" || e.Origin() != apierr.SourceUpstream || len(e.Message) > 4096 {
			t.Fatalf("error %v (%T)", err, err)
		}
		if bytes.Contains([]byte(e.Message), []byte("\x00")) && !bytes.Contains(body, []byte("\x00")) {
			t.Fatalf("message %q", e.Message)
		}
	})
}
