module github.com/como-technologies/riff/riffclient

go 1.26.0

require github.com/como-technologies/riff/riffcore v0.0.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/clipperhouse/uax29/v2 v2.2.0
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/gofrs/flock v0.13.2
	github.com/google/go-cmp v0.7.0
	github.com/mattn/go-runewidth v0.0.31
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/zalando/go-keyring v0.2.8
	golang.org/x/oauth2 v0.37.0
	golang.org/x/term v0.48.0
)

require (
	github.com/danieljoos/wincred v1.2.3 // indirect
	github.com/godbus/dbus/v5 v5.2.2 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/como-technologies/riff/riffcore => ../riffcore
