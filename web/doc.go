// Package web is the web UI: server-rendered pages (html/template) for
// signing in, searching, the moments of videos and an item's page with its
// player, timeline and transcript, and the embedded assets they load. The
// api role mounts it at "/" (api.Server.MountPages): the JSON API keeps its
// paths, and the pages are one more client of the same store layer, scopes
// and visibility (internal/access), in-process.
//
// Everything a person can do here works without JavaScript (sign in,
// search, read an item); the scripts under assets/js add the player's
// timeline and transcript behaviour. Pages carry a Content-Security-Policy
// without 'unsafe-inline' for scripts or styles: no inline script, no
// style attribute, and every untrusted text (names, paths, captions,
// extracted text, highlights) is written as text, never as markup.
package web
