module github.com/como-technologies/riff/riffclient

go 1.26.0

require github.com/como-technologies/riff/riffcore v0.0.0

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/gofrs/flock v0.13.2
	github.com/google/go-cmp v0.7.0
	github.com/zalando/go-keyring v0.2.8
	golang.org/x/oauth2 v0.37.0
)

require (
	github.com/danieljoos/wincred v1.2.3 // indirect
	github.com/godbus/dbus/v5 v5.2.2 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/como-technologies/riff/riffcore => ../riffcore
