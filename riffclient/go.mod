module github.com/como-technologies/riff/riffclient

go 1.26
