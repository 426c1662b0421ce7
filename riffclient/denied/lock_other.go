//go:build !unix

package denied

import "os"

// lockPath: with no flock, the key of each post keeps two senders from
// posting a record twice.
func lockPath(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}
