package api

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
)

// Starts racing on an empty platform create one admin, audited once;
// later starts create nothing and tell whether the password works; a
// password reset is audited as the user's password update by nobody; the
// token secret is one per deployment.
func TestBootstrapAdminCheckAndReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	const email, password = "Boss@Example.com", "bootstrap-pass-1"

	var wg sync.WaitGroup
	created := make(chan bool, 4)
	secrets := make(chan []byte, 4)
	for range 4 {
		wg.Go(func() {
			ok, err := BootstrapAdmin(ctx, db, email, password)
			if err != nil {
				t.Error(err)
			}
			created <- ok
			s, err := tokenSecret(ctx, db)
			if err != nil {
				t.Error(err)
			}
			secrets <- s
		})
	}
	wg.Wait()
	close(created)
	close(secrets)
	n := 0
	for ok := range created {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d starts created the admin, want 1", n)
	}
	var first []byte
	for s := range secrets {
		if len(s) != 32 || (first != nil && !bytes.Equal(s, first)) {
			t.Fatalf("token secrets differ or are not 32 bytes: %x / %x", s, first)
		}
		first = s
	}
	var users []models.User
	db.Find(&users)
	if len(users) != 1 || users[0].Email != email || !users[0].Admin || users[0].RoleID != rootRoleID || !users[0].Enabled {
		t.Fatalf("users %+v", users)
	}
	admin := users[0]
	var events []models.AuditEvent
	db.Find(&events)
	if len(events) != 1 || events[0].TargetKind != "user" || events[0].ActionKey != "create" ||
		events[0].TargetID != admin.ID || events[0].UserID != admin.ID {
		t.Fatalf("audit after bootstrap %+v", events)
	}

	for _, tc := range []struct {
		email, password string
		want            AdminState
	}{
		{email, password, AdminPasswordWorks},
		{"boss@example.com", password, AdminPasswordWorks},
		{email, "another-pass-2", AdminPasswordDiffer},
		{"nobody@example.com", password, AdminAbsent},
	} {
		if got, err := CheckAdmin(ctx, db, tc.email, tc.password); err != nil || got != tc.want {
			t.Errorf("CheckAdmin(%s, %s) = %v, %v; want %v", tc.email, tc.password, got, err, tc.want)
		}
	}

	if err := ResetPassword(ctx, db, "nobody@example.com", "reset-pass-3"); !errors.Is(err, ErrNoSuchUser) {
		t.Fatalf("reset of an unknown email: %v", err)
	}
	if err := ResetPassword(ctx, db, email, "short"); err == nil {
		t.Fatal("a short password was set")
	}
	if err := ResetPassword(ctx, db, " boss@EXAMPLE.com ", "reset-pass-3"); err != nil {
		t.Fatal(err)
	}
	if got, _ := CheckAdmin(ctx, db, email, "reset-pass-3"); got != AdminPasswordWorks {
		t.Fatalf("after the reset: %v", got)
	}
	events = nil
	db.Order("time").Find(&events)
	if len(events) != 2 || events[1].TargetKind != "authenticate" || events[1].ActionKey != "update-password" ||
		events[1].TargetID != admin.ID || events[1].UserID != "" {
		t.Fatalf("audit after the reset %+v", events)
	}
	var after models.User
	db.Take(&after, "id = ?", admin.ID)
	if !after.UpdatedAt.After(admin.UpdatedAt) {
		t.Errorf("updated_at %v not after %v", after.UpdatedAt, admin.UpdatedAt)
	}
	// No email, no bootstrap.
	if ok, err := BootstrapAdmin(ctx, db, "", ""); ok || err != nil {
		t.Fatalf("bootstrap without email: %v %v", ok, err)
	}
}
