// Command load drives a server of the OpenAI API on this machine with
// clients sending at once, and prints how fast it answers: the tokens all
// clients get a second, the time to each answer's first token (TTFT) and
// the time per later token (TPOT). It drives the course's server and
// llama.cpp's llama-server the same way, so their figures compare.
//
// Usage:
//
//	go run ./engine/cmd/load [flags]
//
// For example, with the course's server running (go run ./engine/cmd/serve):
//
//	go run ./engine/cmd/load -clients 1,4,16 -requests 2
//
// For each number of clients it makes a row: every client sends its
// requests one after the other, each a streamed chat request with a
// message of -prompt-words words and max_tokens -max-tokens, greedy, its
// end tokens banned (-ban) so that every answer has max-tokens tokens.
// Each request's message starts with its own number, so that no server
// answers one from another's prompt cache. With -system-words, every
// request starts with the same system message, as an application's
// requests do: a server with a prefix cache computes it once, and the
// row's first request (TTFT 1st) then waits longer than the others. It
// sends to this machine only: a -url with another host is refused.
//
// For example, the time to first token with a shared system prompt of
// about 512 tokens, the first request cold and the next two warm:
//
//	go run ./engine/cmd/load -clients 1 -requests 3 -system-words 420 -max-tokens 16
//
// The flags are:
//
//	-ban string
//		Token ids given a logit_bias of -100, so that every answer runs to
//		max-tokens (SmolLM2's end tokens); empty: none. (default "0,2")
//	-clients string
//		How many clients send at once, a row of the table for each,
//		comma-separated. (default "1,4,16,32")
//	-json
//		Print the rows as JSON, one object a line.
//	-max-tokens int
//		Max_tokens of each request. (default 128)
//	-model string
//		The model the requests name. (default "smollm2")
//	-prompt-words int
//		The words of each request's message, as many for every request (the
//		server's count of prompt tokens is in the table). (default 32)
//	-requests int
//		The requests each client sends, one after the other. (default 2)
//	-system-words int
//		The words of a system message every request starts with, the same
//		for all (a shared system prompt, which a prefix cache computes
//		once); 0: none.
//	-timeout duration
//		The longest one row of the table may take. (default 10m0s)
//	-url string
//		The server's base URL: on this machine (127.0.0.1, ::1 or
//		localhost). (default "http://127.0.0.1:8080/v1")
//
// Exit status: 0 when every row was measured, 2 for a mistake on the
// command line, 1 when a row failed (every request of it, or its
// timeout).
package main
