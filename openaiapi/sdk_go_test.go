package openaiapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// helloAnswer is the hello agent's answer to an anonymous user.
const helloAnswer = "Hello, there!\nWelcome to agent hello!\n\n**Get version**: Shows the version of agent hello (runs the command `version`: the model `hello/version` here)\n"

func sdkClient(gw *gateway) openai.Client {
	return openai.NewClient(option.WithBaseURL(gw.URL+"/v1/"), option.WithAPIKey("gw-token"), option.WithMaxRetries(0))
}

// TestGoSDK: the official OpenAI Go SDK lists the agents as models and
// gets their answers, whole and streamed, and the errors as its errors.
func TestGoSDK(t *testing.T) {
	gw := start(t, setup{tokens: []string{"gw-token"}})
	client := sdkClient(gw)
	ctx := context.Background()

	page, err := client.Models.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID+" "+m.OwnedBy)
	}
	if got := strings.Join(ids, ", "); got != "coder agentgw, files agentgw, hello agentgw, hello/version agentgw, reader agentgw" {
		t.Errorf("models: %s", got)
	}

	done, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    "hello",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Choices) != 1 || done.Choices[0].Message.Content != helloAnswer || done.Choices[0].FinishReason != "stop" ||
		done.Object != "chat.completion" || done.Model != "hello" || done.Usage.TotalTokens != 39 || !strings.HasPrefix(done.ID, "chatcmpl-") {
		t.Errorf("completion: %s", done.RawJSON())
	}

	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model: "coder",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("Answer in English."), openai.UserMessage("What does main.go do?"),
		},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	acc := openai.ChatCompletionAccumulator{}
	var chunks, usageChunks int
	ids = nil
	for stream.Next() {
		c := stream.Current()
		acc.AddChunk(c)
		chunks++
		if len(c.Choices) == 0 {
			usageChunks++
		}
		if len(ids) == 0 || ids[len(ids)-1] != c.ID {
			ids = append(ids, c.ID)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	want := "echo model (test-model) got 3 messages:\n- system: You are terse.\n- system: Answer in English.\n- user: What does main.go do?\n"
	if len(acc.Choices) != 1 || acc.Choices[0].Message.Content != want || acc.Choices[0].FinishReason != "stop" || acc.Choices[0].Message.Role != "assistant" {
		t.Errorf("streamed: %+v\nwant content %q", acc.Choices, want)
	}
	if len(ids) != 1 || usageChunks != 1 || acc.Usage.CompletionTokens == 0 || acc.Usage.TotalTokens != acc.Usage.PromptTokens+acc.Usage.CompletionTokens {
		t.Errorf("%d chunks under ids %v, %d usage chunks, usage %+v", chunks, ids, usageChunks, acc.Usage)
	}

	_, err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "nope", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || apiErr.Code != "model_not_found" || apiErr.Type != "invalid_request_error" {
		t.Errorf("an unknown model: %v", err)
	}
	wrong := openai.NewClient(option.WithBaseURL(gw.URL+"/v1/"), option.WithAPIKey("wrong"), option.WithMaxRetries(0))
	_, err = wrong.Models.List(ctx)
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized || apiErr.Code != "invalid_api_key" {
		t.Errorf("a wrong key: %v", err)
	}
}

// TestGoSDKStreamError: an error inside the stream is the SDK's stream
// error, after the text so far.
func TestGoSDKStreamError(t *testing.T) {
	gw := start(t, setup{upstream: failing})
	client := sdkClient(gw)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model: "coder", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	n := 0
	for stream.Next() {
		n++
	}
	var se *ssestream.StreamError
	if !errors.As(stream.Err(), &se) || n != 1 ||
		!strings.Contains(se.Message, `"message":"the model platform answered 500: the model is down`) || !strings.Contains(se.Message, `"code":"upstream_error"`) {
		t.Errorf("%d chunks, then %v", n, stream.Err())
	}
}
