package loadtool

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"
)

// chunkDir is the directory of Durable's chunks, held open, written with
// the system calls of a chunk of riff's directory store (rifflog/dir):
// the temporary file created on the directory's descriptor, written,
// flushed and closed as a bare descriptor, named by renameat2 with
// RENAME_NOREPLACE (link and remove where the file system has no such
// rename), and the directory flushed on its descriptor.
type chunkDir struct {
	f        *os.File
	fd       int
	noRename bool
}

func openChunkDir(dir string) (*chunkDir, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return &chunkDir{f: os.NewFile(uintptr(fd), dir), fd: fd}, nil
}

func (d *chunkDir) Close() error { return d.f.Close() }

// write writes data as the new file name by way of the temporary file tmp.
func (d *chunkDir) write(tmp, name string, data []byte) error {
	return d.writeVia(tmp, false, name, data)
}

// writeVia writes data as the new file name by way of the file tmp:
// created new, or (over) a recycled file that is there, written over
// and cut to the length of data.
func (d *chunkDir) writeVia(tmp string, over bool, name string, data []byte) error {
	defer runtime.KeepAlive(d)
	flags, op := syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, "create"
	if over {
		flags, op = syscall.O_WRONLY|syscall.O_CLOEXEC, "open"
	}
	fd, err := syscall.Openat(d.fd, tmp, flags, 0o600)
	if err != nil {
		return &os.PathError{Op: op, Path: tmp, Err: err}
	}
	for n := 0; n < len(data) && err == nil; {
		var m int
		m, err = syscall.Write(fd, data[n:])
		n += m
	}
	if err == nil && over {
		err = syscall.Ftruncate(fd, int64(len(data)))
	}
	if err == nil {
		err = syscall.Fsync(fd)
	}
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.rename(tmp, name)
	}
	if err != nil {
		_ = syscall.Unlinkat(d.fd, tmp)
		return &os.PathError{Op: "write", Path: filepath.Join(d.f.Name(), name), Err: err}
	}
	if err := syscall.Fsync(d.fd); err != nil && !errors.Is(err, syscall.EINVAL) {
		return &os.PathError{Op: "sync", Path: d.f.Name(), Err: err}
	}
	return nil
}

// remove deletes the files names, then flushes the directory once, as
// the prune of riff's directory store deletes a batch of chunks.
func (d *chunkDir) remove(names []string) error {
	defer runtime.KeepAlive(d)
	for _, name := range names {
		if err := syscall.Unlinkat(d.fd, name); err != nil && err != syscall.ENOENT {
			return &os.PathError{Op: "remove", Path: filepath.Join(d.f.Name(), name), Err: err}
		}
	}
	if err := syscall.Fsync(d.fd); err != nil && !errors.Is(err, syscall.EINVAL) {
		return &os.PathError{Op: "sync", Path: d.f.Name(), Err: err}
	}
	return nil
}

func (d *chunkDir) rename(tmp, name string) error {
	pt, err := syscall.BytePtrFromString(tmp)
	if err != nil {
		return err
	}
	pn, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(pt)
	defer runtime.KeepAlive(pn)
	if nr := renameat2Number(); nr >= 0 && !d.noRename {
		const noReplace = 1 // RENAME_NOREPLACE
		_, _, e := syscall.Syscall6(uintptr(nr), uintptr(d.fd), uintptr(unsafe.Pointer(pt)), uintptr(d.fd), uintptr(unsafe.Pointer(pn)), noReplace, 0)
		if e == 0 {
			return nil
		}
		if e != syscall.EINVAL && e != syscall.ENOSYS && e != syscall.EOPNOTSUPP {
			return e
		}
		d.noRename = true
	}
	if _, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(d.fd), uintptr(unsafe.Pointer(pt)), uintptr(d.fd), uintptr(unsafe.Pointer(pn)), 0, 0); e != 0 {
		return e
	}
	return syscall.Unlinkat(d.fd, tmp)
}

// renameat2Number is the number of renameat2(2) here, -1 when not known.
func renameat2Number() int {
	switch runtime.GOARCH {
	case "amd64":
		return 316
	case "arm64", "riscv64", "loong64":
		return 276
	}
	return -1
}

// recycle gives each file of names the spare name of the same index,
// then flushes the directory once: the files are no chunks from then
// on, and their inodes and blocks wait for writeOver.
func (d *chunkDir) recycle(names, spares []string) error {
	defer runtime.KeepAlive(d)
	for i, name := range names {
		if err := d.rename(name, spares[i]); err != nil {
			return &os.PathError{Op: "recycle", Path: filepath.Join(d.f.Name(), name), Err: err}
		}
	}
	if err := syscall.Fsync(d.fd); err != nil && !errors.Is(err, syscall.EINVAL) {
		return &os.PathError{Op: "sync", Path: d.f.Name(), Err: err}
	}
	return nil
}

// writeOver writes data as the new file name over the spare file
// spare: no new inode, and the blocks of the spare are written in place.
func (d *chunkDir) writeOver(spare, name string, data []byte) error {
	return d.writeVia(spare, true, name, data)
}
