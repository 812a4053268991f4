package chat_test

import (
	"errors"
	"fmt"

	"github.com/tokenbytoken/course/engine/internal/chat"
)

// A ChatML template, SmolLM2-135M-Instruct's: it adds a system message
// when the conversation has none.
const chatML = `{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system
You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>
' }}{% endif %}{{'<|im_start|>' + message['role'] + '
' + message['content'] + '<|im_end|>' + '
'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant
' }}{% endif %}`

func ExampleTemplate_Render() {
	tmpl, err := chat.Parse(chatML)
	if err != nil {
		panic(err)
	}
	prompt, err := tmpl.Render([]chat.Message{
		{Role: "user", Content: "What is the capital of France?"},
	}, true, "<|im_start|>", "<|im_end|>")
	if err != nil {
		panic(err)
	}
	fmt.Print(prompt)
	// Output:
	// <|im_start|>system
	// You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>
	// <|im_start|>user
	// What is the capital of France?<|im_end|>
	// <|im_start|>assistant
}

// A template refuses a conversation it cannot render with
// raise_exception; Render returns the template's message.
func ExampleRenderError() {
	tmpl, err := chat.Parse(`{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{{ m.content }}{% endfor %}`)
	if err != nil {
		panic(err)
	}
	_, err = tmpl.Render([]chat.Message{{Role: "system", Content: "Be brief."}}, true, "", "")
	var re *chat.RenderError
	if errors.As(err, &re) && re.Raised {
		fmt.Println("refused:", re.Msg)
	}
	// Output:
	// refused: System role not supported
}

// A template that does not parse is refused with its position.
func ExampleParse() {
	_, err := chat.Parse("{% for m in messages %}\n{{ m.content }}\n{% endif %}")
	fmt.Println(err)
	// Output:
	// chat template: syntax error at line 3, column 4: unexpected 'endif': expected 'endfor' or 'else' to close the 'for' on line 1
}
