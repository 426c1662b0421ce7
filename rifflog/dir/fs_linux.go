package dir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// OpenDir opens dir and gives the Dir that writes in it with the *at
// system calls on its descriptor: no lookup of the path of the
// directory for each step, no open of the directory for each flush,
// and the files as bare descriptors (an os.File costs four fcntl and a
// refused epoll_ctl at each open).
func (OS) OpenDir(dir string) (Dir, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	// The os.File owns the descriptor: Close closes it, and its cleanup
	// closes it when a Store is dropped unclosed.
	return &atDir{f: os.NewFile(uintptr(fd), dir), fd: fd, path: dir}, nil
}

// The modes of a file that a Dir creates (atDir.made).
const (
	modeUnknown int32 = iota // no file created yet
	modeKept                 // the umask keeps 0o600: no fchmod
	modeSet                  // the umask takes bits of 0o600: fchmod each file
)

// atDir is a directory of the host held open.
type atDir struct {
	f    *os.File
	fd   int
	path string
	// made is what a create gives: modeKept when the first file came
	// out 0o600, so the files after it need no fchmod each (the umask of
	// a process is set once at its start; a change after the first
	// create of a Store is not seen).
	made atomic.Int32
	// noRename: the file system refused renameat2 with RENAME_NOREPLACE
	// (it has no such flag), so a Rename links and removes.
	noRename atomic.Bool
}

func (d *atDir) name(n string) string { return filepath.Join(d.path, n) }

func (d *atDir) CreateExcl(name string) (File, error) {
	fd, err := syscall.Openat(d.fd, name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, uint32(fileMode))
	runtime.KeepAlive(d)
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: d.name(name), Err: err}
	}
	if err := d.private(fd); err != nil {
		_ = syscall.Close(fd)
		_ = d.Remove(name)
		return nil, fmt.Errorf("make a file of the store private (mode 0600): %w", &fs.PathError{Op: "chmod", Path: d.name(name), Err: err})
	}
	return newRawFile(fd, d.name(name)), nil
}

func (d *atDir) OpenWrite(name string) (File, error) {
	fd, err := syscall.Openat(d.fd, name, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	runtime.KeepAlive(d)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.name(name), Err: err}
	}
	return newRawFile(fd, d.name(name)), nil
}

// private makes the new file fd 0o600 whatever the umask: a umask only
// takes bits away, so the file needs a fchmod only when the umask takes
// a bit of 0o600, which the first file of the Dir shows.
func (d *atDir) private(fd int) error {
	switch d.made.Load() {
	case modeKept:
		return nil
	case modeSet:
		return syscall.Fchmod(fd, uint32(fileMode))
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	if fs.FileMode(st.Mode).Perm() == fileMode {
		d.made.Store(modeKept)
		return nil
	}
	d.made.Store(modeSet)
	return syscall.Fchmod(fd, uint32(fileMode))
}

func (d *atDir) Rename(oldname, newname string) error {
	if !d.noRename.Load() {
		err := renameNoReplace(d.fd, oldname, newname)
		runtime.KeepAlive(d)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP):
			d.noRename.Store(true)
		default:
			return &os.LinkError{Op: "rename", Old: d.name(oldname), New: d.name(newname), Err: err}
		}
	}
	// link(2) never replaces a name either; then the old name goes.
	if err := linkat(d.fd, oldname, newname); err != nil {
		runtime.KeepAlive(d)
		return &os.LinkError{Op: "link", Old: d.name(oldname), New: d.name(newname), Err: err}
	}
	return d.Remove(oldname)
}

func (d *atDir) Remove(name string) error {
	err := syscall.Unlinkat(d.fd, name)
	runtime.KeepAlive(d)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: d.name(name), Err: err}
	}
	return nil
}

func (d *atDir) Sync() error {
	err := retry(func() error { return syscall.Fsync(d.fd) })
	runtime.KeepAlive(d)
	// Some file systems do not sync a directory; that is not a failure of ours.
	if err != nil && !errors.Is(err, syscall.EINVAL) {
		return &fs.PathError{Op: "sync", Path: d.path, Err: err}
	}
	return nil
}

func (d *atDir) Close() error { return d.f.Close() }

// renameNoReplace is renameat2(fd, oldname, fd, newname, RENAME_NOREPLACE):
// one change of the directory where a link and a remove make two. With
// no number for the call on this architecture it gives ENOSYS.
func renameNoReplace(fd int, oldname, newname string) error {
	nr := renameat2Number()
	if nr < 0 {
		return syscall.ENOSYS
	}
	return pathCall(oldname, newname, func(o, n *byte) syscall.Errno {
		_, _, e := syscall.Syscall6(uintptr(nr), uintptr(fd), uintptr(unsafe.Pointer(o)), uintptr(fd), uintptr(unsafe.Pointer(n)), renameNoReplaceFlag, 0)
		return e
	})
}

// renameat2Number is the number of renameat2(2) on this architecture
// (the syscall package does not name it), or -1 when not known here.
func renameat2Number() int {
	switch runtime.GOARCH {
	case "amd64":
		return 316
	case "arm64", "riscv64", "loong64":
		return 276
	}
	return -1
}

// linkat is linkat(fd, oldname, fd, newname, 0).
func linkat(fd int, oldname, newname string) error {
	return pathCall(oldname, newname, func(o, n *byte) syscall.Errno {
		_, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(fd), uintptr(unsafe.Pointer(o)), uintptr(fd), uintptr(unsafe.Pointer(n)), 0, 0)
		return e
	})
}

// renameNoReplaceFlag is RENAME_NOREPLACE of renameat2(2).
const renameNoReplaceFlag = 1

// pathCall runs call with the two names as C strings, again on EINTR.
func pathCall(a, b string, call func(a, b *byte) syscall.Errno) error {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return err
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return err
	}
	for {
		e := call(pa, pb)
		runtime.KeepAlive(pa)
		runtime.KeepAlive(pb)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// AppendFile reads the file name to its end into buf, as a bare
// descriptor: an open, a read of its bytes, a read of its end and a
// close, where os.ReadFile also makes four fcntl, a refused epoll_ctl and
// an fstat. The size of the file is read (fstat) only when buf has too
// little room for a chunk's file.
func (OS) AppendFile(name string, buf []byte) ([]byte, error) {
	var fd int
	err := retry(func() (err error) { fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); return err })
	if err != nil {
		return buf, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	if cap(buf)-len(buf) < readSlack {
		var st syscall.Stat_t
		if err := retry(func() error { return syscall.Fstat(fd, &st) }); err != nil {
			return buf, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		buf = slices.Grow(buf, int(max(st.Size, 0))+readSlack)
	}
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, readSlack)
		}
		var n int
		err := retry(func() (err error) { n, err = syscall.Read(fd, buf[len(buf):cap(buf)]); return err })
		if err != nil {
			return buf, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// retry runs call again while it gives EINTR.
func retry(call func() error) error {
	for {
		if err := call(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// rawFile is a file open for writing as a bare descriptor. Its cleanup
// closes the descriptor of a file that nobody closed (the spare of a
// dropped Store).
type rawFile struct {
	fd      int
	name    string
	cleanup runtime.Cleanup
}

func newRawFile(fd int, name string) *rawFile {
	f := &rawFile{fd: fd, name: name}
	f.cleanup = runtime.AddCleanup(f, func(fd int) { _ = syscall.Close(fd) }, fd)
	return f
}

func (f *rawFile) Write(b []byte) (int, error) {
	if f.fd < 0 {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: fs.ErrClosed}
	}
	n := 0
	for n < len(b) {
		m, err := syscall.Write(f.fd, b[n:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			runtime.KeepAlive(f)
			return n, &fs.PathError{Op: "write", Path: f.name, Err: err}
		}
		if m <= 0 {
			runtime.KeepAlive(f)
			return n, &fs.PathError{Op: "write", Path: f.name, Err: io.ErrShortWrite}
		}
		n += m
	}
	runtime.KeepAlive(f)
	return n, nil
}

func (f *rawFile) Truncate(size int64) error {
	if f.fd < 0 {
		return &fs.PathError{Op: "truncate", Path: f.name, Err: fs.ErrClosed}
	}
	err := retry(func() error { return syscall.Ftruncate(f.fd, size) })
	runtime.KeepAlive(f)
	if err != nil {
		return &fs.PathError{Op: "truncate", Path: f.name, Err: err}
	}
	return nil
}

func (f *rawFile) Sync() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "sync", Path: f.name, Err: fs.ErrClosed}
	}
	err := retry(func() error { return syscall.Fsync(f.fd) })
	runtime.KeepAlive(f)
	if err != nil {
		return &fs.PathError{Op: "sync", Path: f.name, Err: err}
	}
	return nil
}

func (f *rawFile) Close() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	f.cleanup.Stop()
	err := syscall.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}
