package api

import (
	"reflect"
	"testing"

	"github.com/metaharvest/metaharvest/storage"
)

func TestLocationKinds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var want []storage.KindInfo
	for _, k := range storage.Kinds() {
		if k.Name != storage.KindUploadStore {
			want = append(want, k)
		}
	}
	_, reader := e.userWithScopes("kinds@example.com", "locations:read")
	for _, tok := range []string{e.adminToken, reader} {
		var got struct {
			LocationKinds []storage.KindInfo `json:"location_kinds"`
		}
		e.do("GET", "/api/data/v3/location-kinds", tok, nil).status(200).decode(&got)
		if !reflect.DeepEqual(got.LocationKinds, want) {
			t.Fatalf("kinds %+v\nwant %+v", got.LocationKinds, want)
		}
	}
	// The fields clients build their forms from.
	var s3 storage.KindInfo
	for _, k := range want {
		if k.Name == storage.KindS3 {
			s3 = k
		}
	}
	secret := map[string]bool{}
	for _, f := range s3.Fields {
		secret[f.Field] = f.IsSecret
	}
	if len(want) != 2 || want[0].Name != "filesystem" || !secret["secret_access_key"] || secret["access_key_id"] {
		t.Fatalf("kinds %+v", want)
	}
}
