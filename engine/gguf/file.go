package gguf

import (
	"fmt"
	"io"

	"github.com/tokenbytoken/course/engine/internal/regular"
)

// Open opens the GGUF file at path and parses its header. The file is
// mapped into memory read-only where the system allows (Linux), so that
// opening reads only the header and the tensors' pages are read as they
// are used; elsewhere it is read whole. Only a regular file is opened: a
// named pipe or a device is refused before anything is read.
//
// The mapping lasts until Close. If the file is truncated meanwhile, a
// read of a tensor past its new end faults: do not change a model file
// while it is open.
func Open(path string) (*File, error) {
	fd, size, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer fd.Close()
	if int64(int(size)) != size {
		return nil, fmt.Errorf("gguf: %s is %d bytes, more than this machine addresses", path, size)
	}
	data, mapped := mapFile(fd, size)
	if !mapped {
		data = make([]byte, size)
		if _, err := io.ReadFull(fd, data); err != nil {
			return nil, fmt.Errorf("gguf: reading %s: %w", path, err)
		}
	}
	f, err := parse(data, path)
	if err != nil {
		if mapped {
			unmapFile(data)
		}
		return nil, err
	}
	f.mapped = mapped
	return f, nil
}

// HasMagic reports whether path is a regular file that starts with GGUF's
// magic number, "GGUF": a file to read with Open rather than as some other
// format. It reads those 4 bytes only. A named pipe, a device or a
// directory is not opened, and is not GGUF (opening a pipe would wait for
// a writer); Open says what it is.
func HasMagic(path string) bool {
	f, _, err := regular.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [len(magic)]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == magic
}

// Close releases the file's bytes: unmaps them if Open mapped them. The
// tensors' Data slices are set to nil, and any copy of one must no longer
// be used. The metadata stays readable. Closing twice does nothing.
func (f *File) Close() error {
	var err error
	if f.mapped {
		err = unmapFile(f.data)
		f.mapped = false
	}
	f.data = nil
	for i := range f.Tensors {
		f.Tensors[i].Data = nil
	}
	if err != nil {
		return fmt.Errorf("gguf: unmapping %s: %w", f.path, err)
	}
	return nil
}

// DataOffset is where the tensor data section starts, in bytes from the
// start of the file; a tensor's data starts Offset bytes after it.
func (f *File) DataOffset() int64 { return f.dataStart }

// Lookup returns the value of a metadata key.
func (f *File) Lookup(key string) (Value, bool) {
	i, ok := f.keys[key]
	if !ok {
		return Value{}, false
	}
	return f.Metadata[i].Value, true
}

// Tensor returns the tensor with the given name.
func (f *File) Tensor(name string) (*TensorInfo, bool) {
	i, ok := f.names[name]
	if !ok {
		return nil, false
	}
	return &f.Tensors[i], true
}

// A KeyError is what a typed getter found instead of the value it wants:
// no such key, or a value of another type or out of range.
type KeyError struct {
	Key     string
	Missing bool   // there is no such key
	Msg     string // what the value is and what was wanted
}

func (e *KeyError) Error() string {
	if e.Missing {
		return fmt.Sprintf("gguf: no key %q", e.Key)
	}
	return fmt.Sprintf("gguf: key %q %s", e.Key, e.Msg)
}

// get looks key up and reads its value with read, naming the key in the
// error.
func get[T any](f *File, key string, read func(Value) (T, error)) (T, error) {
	v, ok := f.Lookup(key)
	if !ok {
		var zero T
		return zero, &KeyError{Key: key, Missing: true}
	}
	x, err := read(v)
	if err != nil {
		return x, &KeyError{Key: key, Msg: err.(*valueError).msg}
	}
	return x, nil
}

// String returns the string value of key.
func (f *File) String(key string) (string, error) { return get(f, key, Value.Text) }

// Uint returns the value of key, an integer of any type that is not
// negative.
func (f *File) Uint(key string) (uint64, error) { return get(f, key, Value.Uint) }

// Int returns the value of key, an integer of any type that an int64
// holds.
func (f *File) Int(key string) (int64, error) { return get(f, key, Value.Int) }

// Float returns the value of key, a float32 or float64, or an integer
// converted.
func (f *File) Float(key string) (float64, error) { return get(f, key, Value.Float) }

// Bool returns the bool value of key.
func (f *File) Bool(key string) (bool, error) { return get(f, key, Value.Bool) }

// Strings returns the value of key, an array of strings.
func (f *File) Strings(key string) ([]string, error) { return get(f, key, Value.Strings) }

// Ints returns the value of key, an array of integers of any type that an
// int64 holds.
func (f *File) Ints(key string) ([]int64, error) { return get(f, key, Value.Ints) }

// Floats returns the value of key, an array of float32, or of float64
// converted.
func (f *File) Floats(key string) ([]float32, error) { return get(f, key, Value.Floats) }
