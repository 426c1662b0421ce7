module github.com/como-technologies/riff/tools

go 1.26.0

require github.com/como-technologies/riff/riffcore v0.0.0

replace github.com/como-technologies/riff/riffcore => ../riffcore
