package llm

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// EncodingError is an answer whose Content-Encoding DecodeBody cannot
// decode (br, zstd, ...): a body that cannot be read cannot be redacted.
type EncodingError struct {
	// Encoding is the coding as the upstream named it.
	Encoding string
}

func (e *EncodingError) Error() string {
	return fmt.Sprintf("the upstream's answer has the Content-Encoding %q, which the gateway cannot decode", e.Encoding)
}

// DecodeBody replaces an encoded body with the decoded one and drops its
// Content-Encoding and length: gzip, x-gzip and deflate (zlib, or the raw
// deflate some servers send), in any sequence. The transport decodes the
// gzip it asked for itself; this decodes what an upstream sends unasked,
// so that it can be read and redacted. Another coding is an
// *EncodingError, the body left as it is.
func DecodeBody(resp *http.Response) error {
	ce := strings.Join(resp.Header.Values("Content-Encoding"), ",")
	if strings.TrimSpace(ce) == "" {
		return nil
	}
	codings := strings.Split(ce, ",")
	var body io.Reader = resp.Body
	// The last coding applied is listed last: it is undone first.
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch c := strings.ToLower(strings.TrimSpace(codings[i])); c {
		case "identity", "":
		case "gzip", "x-gzip":
			body, err = gzip.NewReader(body)
		case "deflate":
			body, err = inflate(body)
		default:
			return &EncodingError{Encoding: codings[i]}
		}
		if err != nil {
			return fmt.Errorf("decoding the upstream's %s answer: %w", codings[i], err)
		}
	}
	resp.Body = readCloser{Reader: body, Closer: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
	return nil
}

// inflate decodes a deflate body: zlib as the standard says, or the raw
// deflate some servers send.
func inflate(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	h, err := br.Peek(2)
	if err != nil && len(h) < 2 {
		return nil, fmt.Errorf("reading the deflate header: %w", err)
	}
	if h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// readCloser reads from Reader and closes Closer.
type readCloser struct {
	io.Reader
	io.Closer
}
