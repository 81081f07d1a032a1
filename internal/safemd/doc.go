// Package safemd makes user-written markdown safe to hand to a markdown
// renderer that lets HTML through: the markdown is kept as written, and
// what a browser would run is taken out.
//
//   - HTML tags go through bluemonday's user-content policy (UGCPolicy):
//     script, style, iframe, object, forms and the like are dropped, event
//     handler attributes (onclick, onerror ...) and URLs of schemes other
//     than http, https and mailto are removed, links get rel="nofollow".
//     The contents of script and style are dropped; the contents of the
//     other raw-text elements (textarea, title, noscript ...) are sanitised
//     as markup of their own, since a browser that never sees the element
//     would parse them so.
//   - Markdown links, images and link reference definitions whose
//     destination is a javascript:, vbscript:, data: or file: URL (after
//     the decoding a renderer and a browser apply: entities, backslash
//     escapes, embedded tabs and newlines, case) point to "#" instead,
//     however the destination is written: after white space and a line
//     ending (and blockquote markers), in <...>, with a title after it,
//     and in the text left once tags and comments are dropped.
//   - HTML comments and doctypes are dropped; text is passed through byte
//     for byte, so markdown syntax (> quotes, `code`, a < b) is unchanged.
package safemd
