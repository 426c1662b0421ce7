package signin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/zalando/go-keyring"
)

// Keyring is the OS keyring: Get, Set and Delete of a secret by service
// and user. A Get of a secret that is not there wraps [ErrNotInKeyring];
// each other error says that the keyring does not work here.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// ErrNotInKeyring is a Get of a secret that the keyring does not hold.
var ErrNotInKeyring = keyring.ErrNotFound

// OSKeyring is the keyring of the OS (github.com/zalando/go-keyring): the
// Keychain, the Windows credential store, or the Secret Service of D-Bus.
type OSKeyring struct{}

func (OSKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (OSKeyring) Set(service, user, secret string) error   { return keyring.Set(service, user, secret) }
func (OSKeyring) Delete(service, user string) error        { return keyring.Delete(service, user) }

// keyringService is the service of the device key in the keyring. Its
// user is the folder of the sign-in, so that each folder (a second HOME
// is a second machine) has a key of its own.
const keyringService = "riff device key"

// keyFile is the file of the device key when the keyring cannot hold it.
const keyFile = "key"

// errNoKey is a machine with no device key yet: riff login makes one.
var errNoKey = errors.New("this machine has no device key")

// keyStore finds and stores the device key of one folder.
type keyStore struct {
	dir     string // the folder SIGNIN
	keyring Keyring
}

// load gives the device key: from the keyring, else from the file. With
// create, it makes the key when there is none: in the keyring when it
// works, else in a 0600 file.
func (s keyStore) load(create bool) (*ecdsa.PrivateKey, error) {
	inKeyring := false
	if s.keyring != nil {
		secret, err := s.keyring.Get(keyringService, s.dir)
		switch {
		case err == nil:
			key, perr := parseKey([]byte(secret))
			if perr != nil {
				return nil, fmt.Errorf("the device key in the keyring does not read: %w", perr)
			}
			return key, nil
		case errors.Is(err, ErrNotInKeyring):
			inKeyring = true
		}
		// Any other error: the keyring does not work here. The file holds
		// the key.
	}
	data, err := os.ReadFile(filepath.Join(s.dir, keyFile))
	switch {
	case err == nil:
		key, perr := parseKey(data)
		if perr != nil {
			return nil, fmt.Errorf("the device key of this machine does not read: %w", perr)
		}
		return key, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read the device key: %w", err)
	}
	if !create {
		return nil, errNoKey
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("make the device key: %w", err)
	}
	pemKey, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	if inKeyring && s.keyring.Set(keyringService, s.dir, string(pemKey)) == nil {
		return key, nil
	}
	if err := writePrivate(filepath.Join(s.dir, keyFile), pemKey); err != nil {
		return nil, fmt.Errorf("keep the device key: %w", err)
	}
	return key, nil
}

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode the device key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

func parseKey(data []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "EC PRIVATE KEY" {
		return nil, errors.New("no EC PRIVATE KEY block")
	}
	key, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	if key.Curve != elliptic.P256() {
		return nil, errors.New("the key is not on the curve P-256")
	}
	return key, nil
}

// writePrivate writes a file at once with mode 0600: a temp file in the
// same folder and a rename.
func writePrivate(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// KeyringFor gives the keyring of this machine: none when RIFF_KEYRING
// is "off" (the key goes to the file), none on a Linux or BSD with no
// D-Bus session (the Secret Service needs one; a call would fail after
// its timeout), else the keyring of the OS.
func KeyringFor(getenv func(string) string, goos string) Keyring {
	if getenv("RIFF_KEYRING") == "off" {
		return nil
	}
	switch goos {
	case "darwin", "windows":
		return OSKeyring{}
	}
	if getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return nil
	}
	return OSKeyring{}
}
