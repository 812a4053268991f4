package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tokenbytoken/course/engine/internal/cli"
)

func main() {
	os.Exit(cli.Status("load", os.Stderr, nil, func() error {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	}))
}

// config is what the flags ask for.
type config struct {
	url          string
	model        string
	clients      []int
	requests     int
	promptTokens int
	systemWords  int
	maxTokens    int
	ban          map[string]float64
	timeout      time.Duration
	json         bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: load [flags]\n\nDrives an OpenAI-API server on this machine with clients at once, and prints its speed.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	var cfg config
	fs.StringVar(&cfg.url, "url", "http://127.0.0.1:8080/v1", "the server's base URL: on this machine (127.0.0.1, ::1 or localhost)")
	fs.StringVar(&cfg.model, "model", "smollm2", "the model the requests name")
	clients := fs.String("clients", "1,4,16,32", "how many clients send at once, a row of the table for each, comma-separated")
	fs.IntVar(&cfg.requests, "requests", 2, "the requests each client sends, one after the other")
	fs.IntVar(&cfg.promptTokens, "prompt-words", 32, "the words of each request's message, as many for every request (the server's count of prompt tokens is in the table)")
	fs.IntVar(&cfg.systemWords, "system-words", 0, "the words of a system message every request starts with, the same for all (a shared system prompt, which a prefix cache computes once); 0: none")
	fs.IntVar(&cfg.maxTokens, "max-tokens", 128, "max_tokens of each request")
	ban := fs.String("ban", "0,2", "token ids given a logit_bias of -100, so that every answer runs to max-tokens (SmolLM2's end tokens); empty: none")
	fs.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "the longest one row of the table may take")
	fs.BoolVar(&cfg.json, "json", false, "print the rows as JSON, one object a line")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	u, err := url.Parse(cfg.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cli.Usagef("-url = %q: want http://HOST:PORT/v1", cfg.url)
	}
	if !loopback(u.Hostname()) {
		return cli.Usagef("-url = %q: load sends traffic only to this machine (127.0.0.1, ::1 or localhost)", cfg.url)
	}
	for _, f := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1024 {
			return cli.Usagef("-clients = %q: want numbers from 1 to 1024, comma-separated", *clients)
		}
		cfg.clients = append(cfg.clients, n)
	}
	switch {
	case cfg.requests < 1 || cfg.requests > 1000:
		return cli.Usagef("-requests = %d: want 1 to 1000", cfg.requests)
	case cfg.promptTokens < 1 || cfg.promptTokens > 100_000:
		return cli.Usagef("-prompt-words = %d: want 1 to 100000", cfg.promptTokens)
	case cfg.systemWords < 0 || cfg.systemWords > 100_000:
		return cli.Usagef("-system-words = %d: want 0 to 100000", cfg.systemWords)
	case cfg.maxTokens < 1 || cfg.maxTokens > 100_000:
		return cli.Usagef("-max-tokens = %d: want 1 to 100000", cfg.maxTokens)
	case cfg.timeout <= 0:
		return cli.Usagef("-timeout = %v: want a positive duration", cfg.timeout)
	}
	cfg.ban = map[string]float64{}
	if *ban != "" {
		for _, f := range strings.Split(*ban, ",") {
			id, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || id < 0 {
				return cli.Usagef("-ban = %q: want token ids, comma-separated", *ban)
			}
			cfg.ban[strconv.Itoa(id)] = -100
		}
	}
	base := strings.TrimSuffix(cfg.url, "/")
	if !cfg.json {
		fmt.Fprintf(stdout, "%7s %8s %8s %9s %9s %8s %8s %8s %8s %7s\n", "clients", "requests", "prompt", "tok/s", "TTFT 1st", "TTFT p50", "TTFT p95", "TPOT p50", "TPOT p95", "errors")
	}
	for _, n := range cfg.clients {
		row, err := measure(ctx, base, cfg, n)
		if err != nil {
			return err
		}
		if cfg.json {
			js, _ := json.Marshal(row)
			fmt.Fprintln(stdout, string(js))
			continue
		}
		fmt.Fprintf(stdout, "%7d %8d %8d %9.1f %9.1f %8.1f %8.1f %8.2f %8.2f %7d\n", row.Clients, row.Requests, row.PromptTokens, row.TokensPerSecond,
			row.TTFTfirst, row.TTFTp50, row.TTFTp95, row.TPOTp50, row.TPOTp95, row.Errors)
	}
	if !cfg.json {
		fmt.Fprintln(stdout, "(tok/s: completion tokens of all clients over the row's time; TTFT: time to the first token, ms, of the row's first request and p50, p95 over all; TPOT: time per later token, ms)")
	}
	return nil
}

// loopback reports whether host is this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// row is one line of the table: n clients sending at once.
type row struct {
	Clients         int     `json:"clients"`
	Requests        int     `json:"requests"`
	PromptTokens    int     `json:"prompt_tokens"`
	Tokens          int     `json:"completion_tokens"`
	Seconds         float64 `json:"seconds"`
	TokensPerSecond float64 `json:"tok_per_s"`
	TTFTfirst       float64 `json:"ttft_first_ms"`
	TTFTp50         float64 `json:"ttft_p50_ms"`
	TTFTp95         float64 `json:"ttft_p95_ms"`
	TPOTp50         float64 `json:"tpot_p50_ms"`
	TPOTp95         float64 `json:"tpot_p95_ms"`
	Errors          int     `json:"errors"`
}

// timing is what one request measured.
type timing struct {
	ttft, tpot   time.Duration
	tokens       int
	promptTokens int
	err          error
}

// measure runs n clients, each sending cfg.requests requests one after the
// other, and sums up what they measured.
func measure(ctx context.Context, base string, cfg config, n int) (row, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, Proxy: nil}}
	results := make([]timing, n*cfg.requests)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range cfg.requests {
				// Each request's message is its own, so that no server
				// answers one from another's cache.
				results[c*cfg.requests+r] = request(ctx, client, base, cfg, fmt.Sprintf("%d.%d", c, r))
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if err := ctx.Err(); err != nil {
		return row{}, fmt.Errorf("%d clients: %w (after %v; -timeout gives a row longer)", n, err, took.Round(time.Millisecond))
	}
	out := row{Clients: n, Requests: len(results), Seconds: took.Seconds()}
	var ttft, tpot []float64
	var firstErr error
	for _, t := range results {
		if t.err != nil {
			out.Errors++
			firstErr = cmpErr(firstErr, t.err)
			continue
		}
		out.Tokens += t.tokens
		out.PromptTokens = max(out.PromptTokens, t.promptTokens)
		ttft = append(ttft, float64(t.ttft)/1e6)
		if t.tokens > 1 {
			tpot = append(tpot, float64(t.tpot)/1e6)
		}
	}
	if out.Errors == len(results) {
		return row{}, fmt.Errorf("%d clients: every request failed: %w", n, firstErr)
	}
	out.TokensPerSecond = float64(out.Tokens) / took.Seconds()
	if results[0].err == nil {
		out.TTFTfirst = float64(results[0].ttft) / 1e6
	}
	out.TTFTp50, out.TTFTp95 = percentile(ttft, 50), percentile(ttft, 95)
	out.TPOTp50, out.TPOTp95 = percentile(tpot, 50), percentile(tpot, 95)
	return out, nil
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// percentile is the p-th percentile of xs (nearest rank), 0 for none.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// request sends one streamed chat request and times its tokens as they
// arrive: each chunk with text is a token, as both servers stream them.
func request(ctx context.Context, client *http.Client, base string, cfg config, tag string) timing {
	words := make([]string, cfg.promptTokens)
	for i := range words {
		words[i] = "word"
	}
	messages := []map[string]string{{"role": "user", "content": tag + " " + strings.Join(words, " ")}}
	if cfg.systemWords > 0 {
		system := make([]string, cfg.systemWords)
		for i := range system {
			system[i] = systemWords[i%len(systemWords)]
		}
		messages = append([]map[string]string{{"role": "system", "content": strings.Join(system, " ")}}, messages...)
	}
	body, _ := json.Marshal(map[string]any{
		"model":          cfg.model,
		"messages":       messages,
		"max_tokens":     cfg.maxTokens,
		"temperature":    0,
		"stream":         true,
		"stream_options": map[string]bool{"include_usage": true},
		"logit_bias":     cfg.ban,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return timing{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	sent := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return timing{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return timing{err: fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(msg))}
	}
	var t timing
	var first, last time.Time
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return timing{err: fmt.Errorf("a chunk that is not JSON: %q", clip(data))}
		}
		if len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			last = now
			t.tokens++
		}
		if chunk.Usage != nil {
			t.promptTokens = chunk.Usage.PromptTokens
			t.tokens = max(t.tokens, chunk.Usage.CompletionTokens)
		}
	}
	if err := sc.Err(); err != nil {
		return timing{err: err}
	}
	if first.IsZero() {
		return timing{err: errors.New("no token in the answer")}
	}
	t.ttft = first.Sub(sent)
	if t.tokens > 1 {
		t.tpot = last.Sub(first) / time.Duration(t.tokens-1)
	}
	return t
}

// systemWords are the words of the shared system message, over and over.
var systemWords = strings.Fields("You are a helpful assistant for a course on how language models write text. Answer briefly and plainly, and say so when you do not know.")

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
