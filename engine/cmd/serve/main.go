package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/cli"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/engine/schedule"
	"github.com/tokenbytoken/course/engine/serve"
)

func main() {
	os.Exit(cli.Status("serve", os.Stderr, nil, func() error {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil)
	}))
}

// run parses the flags, loads the models and serves until ctx ends.
// listening, when not nil, is told the address once the server listens.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, listening func(addr string)) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: serve [flags]\n\nServes the OpenAI API's chat and completion requests with the engine.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	models := fs.String("model", "smollm2", `the models to serve, comma-separated: "smollm2" (SmolLM2-135M-Instruct, installed by make install), "default" (the built-in model) or GGUF files; a request names one by this name (a file by its base name)`)
	addr := fs.String("addr", "127.0.0.1:8080", "the address to listen on: loopback unless you say otherwise")
	apiKey := fs.String("api-key", "", "the key every request must bring as Authorization: Bearer <key> (default: none asked)")
	concurrent := fs.Int("concurrent", serve.DefaultConcurrent, "generations run at once")
	queue := fs.Int("queue", serve.DefaultQueue, "requests that may wait for a generation; past them, 429")
	maxBody := fs.Int64("max-body", serve.DefaultMaxBodyBytes, "the largest request body, in bytes; past it, 413")
	maxTokens := fs.Int("max-tokens", 512, "the most tokens a request that sets no max_tokens may generate; 0: until the model ends or the context is full")
	batch := fs.Bool("batch", true, "run the next token of every generation of a model as one batched pass (continuous batching); -batch=false runs each generation's passes on their own")
	chunk := fs.Int("chunk", 512, "with -batch, the most tokens of one prompt a step runs (at most 512): longer prompts run over several steps, and the other generations keep streaming")
	kvMemory := fs.Int64("kv-memory", 1<<30, "with -batch, the KV block pool's budget in bytes: every generation's keys and values live in it; when it is full the newest generation waits or is computed again later")
	blockSize := fs.Int("block-size", 16, "with -batch, the positions of a KV block (1 to 64)")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	switch {
	case *concurrent < 1 || *concurrent > 1024:
		return cli.Usagef("-concurrent = %d: want 1 to 1024", *concurrent)
	case *queue < 1 || *queue > 1<<16:
		return cli.Usagef("-queue = %d: want 1 to 65536", *queue)
	case *maxBody < 1<<10 || *maxBody > 1<<30:
		return cli.Usagef("-max-body = %d: want 1 KiB to 1 GiB", *maxBody)
	case *maxTokens < 0:
		return cli.Usagef("-max-tokens = %d: want 0 (no limit but the context) or more", *maxTokens)
	case *chunk < 1 || *chunk > engine.Ubatch:
		return cli.Usagef("-chunk = %d: want 1 to %d", *chunk, engine.Ubatch)
	case *kvMemory < 1<<20 || *kvMemory > 1<<40:
		return cli.Usagef("-kv-memory = %d: want 1 MiB to 1 TiB", *kvMemory)
	case *blockSize < 1 || *blockSize > 64:
		return cli.Usagef("-block-size = %d: want 1 to 64", *blockSize)
	}
	var served []*serve.Model
	for _, name := range strings.Split(*models, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return cli.Usagef("-model = %q: an empty name in the list", *models)
		}
		m, err := load(name)
		if err != nil {
			return err
		}
		served = append(served, m)
	}
	srv, err := serve.New(serve.Config{Models: served, APIKey: *apiKey, Concurrent: *concurrent, Queue: *queue, MaxBodyBytes: *maxBody, DefaultMaxTokens: *maxTokens,
		Unbatched: !*batch, Schedule: schedule.Config{Chunk: *chunk, KVMemory: *kvMemory, BlockSize: *blockSize}})
	if err != nil {
		return cli.Usagef("%v", err)
	}
	defer srv.Stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	fmt.Fprintln(stdout, srv.Limits())
	fmt.Fprintf(stdout, "serving on http://%s/v1 (Ctrl-C stops)\n", ln.Addr())
	if listening != nil {
		listening(ln.Addr().String())
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	srv.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// load reads one model to serve, named as -model names it.
func load(name string) (*serve.Model, error) {
	m, tok, err := models.Load(name, "")
	id := name
	if !slices.Contains(models.Names, name) {
		id = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	if err != nil {
		return nil, err
	}
	return &serve.Model{ID: id, Model: m, Tokenizer: tok}, nil
}
