package dir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// FS is the small file system under a Store: the real one (OS), or a
// simulated one in the crash test. Names are paths of the host.
type FS interface {
	// MkdirAll makes dir and its parents. It does not sync them.
	MkdirAll(dir string) error
	// OpenDir opens the directory dir for the writes of objects in it:
	// a Store keeps one open for each directory that it writes in.
	OpenDir(dir string) (Dir, error)
	// Remove removes a file or an empty directory (fs.ErrNotExist when
	// it is not there).
	Remove(name string) error
	// ReadFile reads a whole file (fs.ErrNotExist when it is not there).
	ReadFile(name string) ([]byte, error)
	// ReadDir lists a directory in name order (fs.ErrNotExist when it
	// is not there).
	ReadDir(dir string) ([]Entry, error)
	// SyncDir flushes the entries of a directory.
	SyncDir(dir string) error
	// Exists says whether a file or directory name is there.
	Exists(name string) (bool, error)
}

// Dir is a directory held open; its names are names of entries in it
// (no slash). A Store writes each object through the Dir of its
// directory, so the create, the name and the flush of a chunk are all
// on the one directory, with no path to look up and no open of the
// directory for each flush.
type Dir interface {
	// CreateExcl creates a new file for writing, with mode 0o600; it
	// fails when name exists.
	CreateExcl(name string) (File, error)
	// OpenWrite opens the file name, which is there, for writing from
	// its start over its bytes (fs.ErrNotExist when it is not there):
	// a recycled file is written this way, with no new inode.
	OpenWrite(name string) (File, error)
	// Rename gives the file oldname the name newname and removes the
	// name oldname. It never replaces newname: when newname exists it
	// fails with an error that wraps fs.ErrExist and changes nothing.
	Rename(oldname, newname string) error
	// Remove removes the file name (fs.ErrNotExist when it is not there).
	Remove(name string) error
	// Sync flushes the entries of the directory.
	Sync() error
	// Close closes the directory.
	Close() error
}

// File is a file open for writing.
type File interface {
	io.Writer
	// Truncate cuts the file to size bytes: after a write over a
	// recycled file, its old bytes past the new ones.
	Truncate(size int64) error
	// Sync flushes the bytes written so far, and the size.
	Sync() error
	Close() error
}

// Entry is an entry of a directory.
type Entry struct {
	Name string
	Dir  bool
}

// OS is the file system of the host.
type OS struct{}

var _ FS = OS{}

// The modes of the store's folders and files: the log, the checkpoints
// and signins.json (with the emails of the people) are for the user of
// the server only, whatever the umask (docs/operations.md, "Start").
const (
	dirMode  fs.FileMode = 0o700
	fileMode fs.FileMode = 0o600
)

// MkdirAll makes dir and its parents with mode 0o700, then sets 0o700 on
// dir itself: a umask takes bits away at the creation only, and a folder
// that was there (of an older build, or one that the person made) gets
// the mode too.
func (OS) MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	if err := os.Chmod(dir, dirMode); err != nil {
		return fmt.Errorf("make the folder of the store private (mode 0700): %w", err)
	}
	return nil
}

// Remove is os.Remove.
func (OS) Remove(name string) error { return os.Remove(name) }

// ReadFile reads a whole file, as os.ReadFile does (AppendFile with no
// buffer).
func (OS) ReadFile(name string) ([]byte, error) { return OS{}.AppendFile(name, nil) }

// FileAppender is an FS that reads a whole file into the end of a buffer
// of the caller, so that a replay reads each chunk into a buffer that an
// earlier chunk used ([Store.GetAppend]). A Store on an FS that is not
// one reads the file with ReadFile and appends it.
type FileAppender interface {
	// AppendFile appends the bytes of the file name to buf and gives
	// the result (fs.ErrNotExist when it is not there).
	AppendFile(name string, buf []byte) ([]byte, error)
}

// readSlack is the room past the size of a file that AppendFile leaves
// in a buffer it grows: a file that grew since its size was read still
// reads to its end in one more read.
const readSlack = 512

// ReadDir is os.ReadDir.
func (OS) ReadDir(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	out := make([]Entry, len(des))
	for i, de := range des {
		out[i] = Entry{Name: de.Name(), Dir: de.IsDir()}
	}
	return out, err
}

// Exists is os.Lstat: a name that is not there is no error.
func (OS) Exists(name string) (bool, error) {
	_, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// SyncDir opens dir and fsyncs it.
func (OS) SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	// Some file systems do not sync a directory; that is not a failure of ours.
	if errors.Is(err, syscall.EINVAL) {
		err = nil
	}
	return errors.Join(err, f.Close())
}
