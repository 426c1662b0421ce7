module github.com/como-technologies/riff/riffengine

go 1.26.0

require (
	github.com/como-technologies/riff/riffcore v0.0.0
	github.com/como-technologies/riff/rifflog v0.0.0
	github.com/como-technologies/riff/riffstate v0.0.0
	github.com/como-technologies/riff/tools v0.0.0
	github.com/google/go-cmp v0.7.0
)

require (
	github.com/coreos/go-oidc/v3 v3.21.0
	github.com/go-jose/go-jose/v4 v4.1.9
	golang.org/x/sync v0.24.0
)

require golang.org/x/oauth2 v0.37.0 // indirect

replace (
	github.com/como-technologies/riff/riffcore => ../riffcore
	github.com/como-technologies/riff/rifflog => ../rifflog
	github.com/como-technologies/riff/riffstate => ../riffstate
	github.com/como-technologies/riff/tools => ../tools
)
