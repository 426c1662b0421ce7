//go:build !linux

package loadtool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// chunkDir is the directory of Durable's chunks, held open for its
// flushes, written by paths: the steps of a chunk of riff's directory
// store on a system other than Linux (create, write, fsync, close, link,
// remove the temporary name, fsync the directory).
type chunkDir struct {
	f *os.File
}

func openChunkDir(dir string) (*chunkDir, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	return &chunkDir{f: f}, nil
}

func (d *chunkDir) Close() error { return d.f.Close() }

func (d *chunkDir) write(tmp, name string, data []byte) error {
	tmp = filepath.Join(d.f.Name(), tmp)
	return d.publish(tmp, name, writeNewFile(tmp, data))
}

// publish links the written file tmp (when written is nil) as name,
// removes tmp, and flushes the directory.
func (d *chunkDir) publish(tmp, name string, written error) error {
	err := written
	if err == nil {
		err = os.Link(tmp, filepath.Join(d.f.Name(), name))
	}
	if rerr := os.Remove(tmp); err == nil {
		err = rerr
	}
	if err == nil {
		err = d.f.Sync()
	}
	return err
}

// remove deletes the files names, then flushes the directory once.
func (d *chunkDir) remove(names []string) error {
	for _, name := range names {
		if err := os.Remove(filepath.Join(d.f.Name(), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return d.f.Sync()
}

// recycle renames each file of names as the spare of the same index,
// then flushes the directory once.
func (d *chunkDir) recycle(names, spares []string) error {
	for i, name := range names {
		if err := os.Rename(filepath.Join(d.f.Name(), name), filepath.Join(d.f.Name(), spares[i])); err != nil {
			return err
		}
	}
	return d.f.Sync()
}

// writeOver writes data as the new file name over the spare file spare.
func (d *chunkDir) writeOver(spare, name string, data []byte) error {
	spare = filepath.Join(d.f.Name(), spare)
	return d.publish(spare, name, writeOverFile(spare, data))
}

// writeOverFile writes data over the file path from its start, cuts it
// to the length of data, and flushes it.
func writeOverFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
