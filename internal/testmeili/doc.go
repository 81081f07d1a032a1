// Package testmeili runs a real Meilisearch server for tests: the upstream
// 1.21.0 binary on a loopback port, with a temporary database directory and
// a random master key, so that the Meilisearch backend is tested against
// the server it runs against in production.
//
// deploy/setup.sh --s3 (run by `make services` and `make test`) installs
// the binary into ~/.cache/metaharvest/meilisearch-1.21.0 (see Binary for
// where else it is looked for). Without it the tests fail at once saying
// so (ErrNoBinary), so that a missing install step cannot pass as green.
//
// Shared is one server per test binary (tests keep apart by index prefix,
// see Prefix), stopped by RunMain; Start is a server owned by one test,
// which it may Kill and Restart (fault tests).
//
//	func TestMain(m *testing.M) { os.Exit(testmeili.RunMain(m)) }
//
//	func TestThing(t *testing.T) {
//		srv := testmeili.Shared(t)
//		e, err := meili.New(ctx, meili.Config{URL: srv.URL, APIKey: srv.Key, IndexPrefix: testmeili.Prefix(t)})
//	}
package testmeili
