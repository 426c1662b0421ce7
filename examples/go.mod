module github.com/como-technologies/riff/examples

go 1.26.0

require (
	github.com/como-technologies/riff/riffclient v0.0.0
	github.com/como-technologies/riff/riffcore v0.0.0
	github.com/como-technologies/riff/riffengine v0.0.0
	github.com/como-technologies/riff/rifflog v0.0.0
	github.com/como-technologies/riff/riffstate v0.0.0
	github.com/como-technologies/riff/tools v0.0.0
	github.com/go-jose/go-jose/v4 v4.1.9
)

require (
	github.com/coreos/go-oidc/v3 v3.21.0 // indirect
	github.com/danieljoos/wincred v1.2.3 // indirect
	github.com/godbus/dbus/v5 v5.2.2 // indirect
	github.com/gofrs/flock v0.13.2 // indirect
	github.com/zalando/go-keyring v0.2.8 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

replace (
	github.com/como-technologies/riff/riffclient => ../riffclient
	github.com/como-technologies/riff/riffcore => ../riffcore
	github.com/como-technologies/riff/riffengine => ../riffengine
	github.com/como-technologies/riff/rifflog => ../rifflog
	github.com/como-technologies/riff/riffstate => ../riffstate
	github.com/como-technologies/riff/tools => ../tools
)
