module github.com/nikolalohinski/gonja/v2

go 1.24.4

require (
	github.com/dustin/go-humanize v1.0.1
	golang.org/x/text v0.23.0
)

// Critical issue https://github.com/NikolaLohinski/gonja/pull/28
retract v2.3.2
