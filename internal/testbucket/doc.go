// Package testbucket runs a real S3 server for tests: the versitygw gateway in
// posix mode on a loopback port, backed by a temporary directory.
//
// Tests of the s3 location kind run against it instead of a mock, so request
// signing, paging, error codes and ETags are the ones a real server
// produces. The binary is installed by `make services` and `make test`
// (deploy/setup.sh --s3: go install
// github.com/versity/versitygw/cmd/versitygw@v1.8.0); without it the tests
// fail at once saying so (ErrNoBinary), so that a missing install step
// cannot pass as green.
//
// Use Start for a server owned by one test, or Shared for one server per
// test binary (buckets from BucketName keep tests apart) together with
// RunMain in TestMain so the process is stopped at the end:
//
//	func TestMain(m *testing.M) { os.Exit(testbucket.RunMain(m)) }
//
//	func TestThing(t *testing.T) {
//		srv := testbucket.Shared(t)
//		bucket := testbucket.BucketName(t)
//		srv.CreateBucket(t, bucket)
//		srv.PutObject(t, bucket, "a/b.txt", []byte("hello"))
//	}
package testbucket
