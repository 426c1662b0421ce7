module github.com/como-technologies/riff/tools

go 1.26.0

require (
	github.com/como-technologies/riff/riffcore v0.0.0
	github.com/coreos/go-oidc/v3 v3.21.0
	github.com/go-jose/go-jose/v4 v4.1.9
	golang.org/x/oauth2 v0.37.0
)

replace github.com/como-technologies/riff/riffcore => ../riffcore
