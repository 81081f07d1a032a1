package main

import "context"

func benchScale(ctx context.Context, n int) error { return nil }
