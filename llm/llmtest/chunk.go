package llmtest

import (
	"encoding/json"
	"strings"
)

// Done is the frame that ends an OpenAI-style stream.
const Done = "data: [DONE]\n\n"

// ID, Object and Created are what every chunk and completion the fake
// writes carries, so that its output is the same bytes on every run.
const (
	ID      = "chatcmpl-llmtest"
	Created = 0
	// DefaultModel is the model named in chunks when the reply names none.
	DefaultModel = "llmtest"
)

// ToolCall is a function call of the model: scripted in a reply, or read
// from an assistant message of a request.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is a reply's token counts.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireDelta struct {
	Role      string         `json:"role,omitempty"`
	Content   *string        `json:"content,omitempty"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireChunk struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *Usage       `json:"usage,omitempty"`
}

// encode is v as JSON; the types encoded here cannot fail.
func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("llmtest: " + err.Error())
	}
	return string(b)
}

func deltaChunk(model string, d wireDelta, finish string) string {
	c := wireChoice{Delta: d}
	if finish != "" {
		c.FinishReason = &finish
	}
	return encode(wireChunk{ID: ID, Object: "chat.completion.chunk", Created: Created, Model: orDefault(model), Choices: []wireChoice{c}})
}

func orDefault(model string) string {
	if model == "" {
		return DefaultModel
	}
	return model
}

// TextChunk is the data of a chunk whose delta is the text s.
func TextChunk(s string) string {
	return deltaChunk("", wireDelta{Content: &s}, "")
}

// ToolCallChunk is the data of a chunk whose delta starts the tool call
// at index i: its id, name and the first part of its arguments.
func ToolCallChunk(i int, c ToolCall) string {
	return deltaChunk("", wireDelta{ToolCalls: []wireToolCall{{Index: &i, ID: c.ID, Type: "function",
		Function: wireFunction{Name: c.Name, Arguments: c.Arguments}}}}, "")
}

// ArgumentsChunk is the data of a chunk whose delta continues the
// arguments of the tool call at index i.
func ArgumentsChunk(i int, fragment string) string {
	return deltaChunk("", wireDelta{ToolCalls: []wireToolCall{{Index: &i, Function: wireFunction{Arguments: fragment}}}}, "")
}

// FinishChunk is the data of a chunk with an empty delta and the finish
// reason.
func FinishChunk(reason string) string {
	return deltaChunk("", wireDelta{}, reason)
}

// UsageChunk is the data of a usage-only chunk (no choices), as OpenAI
// sends last when stream_options.include_usage is set.
func UsageChunk(u Usage) string {
	return encode(wireChunk{ID: ID, Object: "chat.completion.chunk", Created: Created, Model: DefaultModel, Choices: []wireChoice{}, Usage: &u})
}

// ErrorChunk is the data of an error sent in the middle of a stream.
func ErrorChunk(message string) string {
	return ErrorBody(message)
}

// ErrorBody is an OpenAI error object with the message, the body of an
// HTTP error.
func ErrorBody(message string) string {
	return encode(map[string]any{"error": map[string]any{"message": message}})
}

// Frame is the SSE frame of one data line: "data: " + data + "\n\n".
func Frame(data string) string {
	return "data: " + data + "\n\n"
}

// SSE is a whole stream: a frame for each data, then [DONE].
func SSE(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString(Frame(d))
	}
	b.WriteString(Done)
	return b.String()
}
