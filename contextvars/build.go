package contextvars

// PromptSet is the Set that a list holding only the userInputPrompt
// variable, then the globalPrompts variable when global is not nil,
// decodes to: what a caller that has these values already (the OpenAI
// endpoint) builds instead of encoding them as a list and decoding it.
func PromptSet(prompt string, global []Prompt) *Set {
	s := &Set{UserInputPrompt: prompt, promptGiven: true, order: []string{NameUserInputPrompt}}
	if global != nil {
		s.GlobalPrompts = global
		s.order = append(s.order, NameGlobalPrompts)
	}
	return s
}
