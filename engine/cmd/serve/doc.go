// Command serve answers the OpenAI API's chat and completion requests with
// the course's engine, so that any client of that API can use it.
//
// Usage:
//
//	go run ./engine/cmd/serve [flags]
//
// For example:
//
//	go run ./engine/cmd/serve
//	go run ./engine/cmd/serve -model smollm2,default -addr 127.0.0.1:9000
//
// and then, from another terminal:
//
//	curl -N http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json' -d '{"model": "smollm2", "messages": [{"role": "user", "content": "Name three fruits."}], "max_tokens": 64, "stream": true}'
//
// It prints its limits (each model's context, the KV cache a generation
// may take, how many generations run at once and how many requests may
// wait, and how it batches them) and the address it listens on, then
// serves until Ctrl-C. Package engine/serve says what each request
// parameter does. The generations of a model run as one batched pass a
// step (continuous batching, package engine/schedule): each step runs the
// next token of every generation, and pieces of new prompts of up to
// -chunk tokens. Their keys and values live in one pool of KV blocks of
// -kv-memory bytes, which also keeps the blocks of prompts' shared
// beginnings (a system prompt) for the next request that starts the same.
//
// The flags are:
//
//	-addr string
//		The address to listen on: loopback unless you say otherwise.
//		(default "127.0.0.1:8080")
//	-api-key string
//		The key every request must bring as Authorization: Bearer <key>
//		(default: none asked).
//	-batch
//		Run the next token of every generation of a model as one batched
//		pass (continuous batching); -batch=false runs each generation's
//		passes on their own. (default true)
//	-block-size int
//		With -batch, the positions of a KV block (1 to 64). (default 16)
//	-chunk int
//		With -batch, the most tokens of one prompt a step runs (at most
//		512): longer prompts run over several steps, and the other
//		generations keep streaming. (default 512)
//	-concurrent int
//		Generations run at once. (default 32)
//	-kv-memory int
//		With -batch, the KV block pool's budget in bytes: every
//		generation's keys and values live in it; when it is full the
//		newest generation waits or is computed again later. (default
//		1073741824)
//	-max-body int
//		The largest request body, in bytes; past it, 413. (default 1048576)
//	-max-tokens int
//		The most tokens a request that sets no max_tokens may generate; 0:
//		until the model ends or the context is full. (default 512)
//	-model string
//		The models to serve, comma-separated: "smollm2"
//		(SmolLM2-135M-Instruct, installed by make install), "default" (the
//		built-in model) or GGUF files; a request names one by this name (a
//		file by its base name). (default "smollm2")
//	-queue int
//		Requests that may wait for a generation; past them, 429. (default 64)
//
// Exit status: 0 when stopped by Ctrl-C, 2 for a mistake on the command
// line, 1 when a model cannot be loaded or the address cannot be used.
package main
