package train

import (
	"context"
	"github.com/tokenbytoken/course/engine/models"
	"testing"
)

// BenchmarkEncodeDocuments encodes the files of the installed Go's
// strings package with the course's built-in tokenizer, the documents
// shared among the cores; one op is the whole set:
//
//	go test ./engine/train -run '^$' -bench 'EncodeDocuments|CountChunks'
func BenchmarkEncodeDocuments(b *testing.B) {
	texts := stdlibTexts(b)
	_, tok, err := models.Default()
	if err != nil {
		b.Fatal(err)
	}
	e := NewEncoder(tok)
	var bytes int64
	for _, t := range texts {
		bytes += int64(len(t))
	}
	b.SetBytes(bytes)
	for b.Loop() {
		if _, err := e.EncodeDocuments(texts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCountChunks counts the chunks of the same files, as the first
// pass of TrainTokenizer does, the texts shared among the cores.
func BenchmarkCountChunks(b *testing.B) {
	texts := stdlibTexts(b)
	var bytes int64
	for _, t := range texts {
		bytes += int64(len(t))
	}
	b.SetBytes(bytes)
	for b.Loop() {
		if len(countChunks(context.Background(), texts)) == 0 {
			b.Fatal("no chunks counted")
		}
	}
}
