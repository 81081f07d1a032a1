package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/metaharvest/metaharvest/api"
	"github.com/metaharvest/metaharvest/internal/config"
)

const adminUsage = `usage: metaharvest admin <command>

commands:
  bootstrap [PASSWORD_FILE]    create the admin from ADMIN_EMAIL/ADMIN_PASSWORD on a
                               platform without users, else say whether that password
                               works (PASSWORD_FILE: where the password is kept, named
                               in the messages)
  reset-password EMAIL         set EMAIL's password: the first line of stdin when it is
                               not a terminal, else a generated one, printed once`

// runAdmin runs `metaharvest admin ...`: operator commands that print for
// a person (stdout) rather than log.
func runAdmin(ctx context.Context, args []string, cfg config.Config, stdin *os.File, stdout io.Writer) error {
	switch {
	case len(args) >= 1 && len(args) <= 2 && args[0] == "bootstrap":
		file := ""
		if len(args) == 2 {
			file = args[1]
		}
		return adminBootstrap(ctx, cfg, file, stdout)
	case len(args) == 2 && args[0] == "reset-password":
		return adminResetPassword(ctx, cfg, args[1], stdin, stdout)
	}
	return errAdminUsage
}

var errAdminUsage = errors.New("unknown admin command")

// adminBootstrap tells the operator of `make run` the truth about the admin
// password: it prints a password only when it works.
func adminBootstrap(ctx context.Context, cfg config.Config, file string, stdout io.Writer) error {
	if cfg.AdminEmail == "" {
		return errors.New("ADMIN_EMAIL and ADMIN_PASSWORD are not set")
	}
	db, err := openMigrated(ctx, cfg)
	if err != nil {
		return err
	}
	sqlDB, _ := db.DB()
	defer sqlDB.Close()
	state, err := api.CheckAdmin(ctx, db, cfg.AdminEmail, cfg.AdminPassword)
	if err != nil {
		return err
	}
	kept := "ADMIN_PASSWORD"
	if file != "" {
		kept = file
	}
	reset := fmt.Sprintf("metaharvest admin reset-password %s", cfg.AdminEmail)
	if file != "" {
		reset += " < " + file
	}
	const rule = "================================================================"
	switch state {
	case api.AdminCreated:
		fmt.Fprintf(stdout, "%s\n bootstrap admin: %s\n password:        %s\n (kept in %s)\n%s\n", rule, cfg.AdminEmail, cfg.AdminPassword, kept, rule)
	case api.AdminPasswordWorks:
		fmt.Fprintf(stdout, "admin: %s (password in %s)\n", cfg.AdminEmail, kept)
	case api.AdminPasswordDiffer:
		fmt.Fprintf(stdout, "%s\n the admin %s exists already in this database, and the password\n in %s is not its password (it was set elsewhere).\n"+
			" To log in, reset it to that one:\n   %s\n (with DATABASE_URL of this database; `make admin-password` does it for make run)\n%s\n",
			rule, cfg.AdminEmail, kept, reset, rule)
	case api.AdminAbsent:
		fmt.Fprintf(stdout, "%s\n this database has users, but none is %s (ADMIN_EMAIL).\n"+
			" Log in as one of its administrators, or reset one's password:\n   metaharvest admin reset-password EMAIL\n%s\n",
			rule, cfg.AdminEmail, rule)
	}
	return nil
}

// adminResetPassword sets a user's password from stdin, or to a generated
// one printed once.
func adminResetPassword(ctx context.Context, cfg config.Config, email string, stdin *os.File, stdout io.Writer) error {
	password, generated := "", false
	if st, err := stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice == 0 {
		line, err := bufio.NewReader(io.LimitReader(stdin, 4096)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the password from stdin: %w", err)
		}
		password = strings.TrimRight(line, "\r\n")
	}
	if password == "" {
		b := make([]byte, 18)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		password, generated = base64.RawURLEncoding.EncodeToString(b), true
	}
	db, err := openMigrated(ctx, cfg)
	if err != nil {
		return err
	}
	sqlDB, _ := db.DB()
	defer sqlDB.Close()
	if err := api.ResetPassword(ctx, db, email, password); err != nil {
		return err
	}
	if generated {
		fmt.Fprintf(stdout, "password of %s reset; the new password (shown once): %s\n", email, password)
	} else {
		fmt.Fprintf(stdout, "password of %s reset to the one read from stdin\n", email)
	}
	return nil
}
