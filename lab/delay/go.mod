module github.com/sammy-pacing/lab/delay

go 1.22
