// Package documents holds the extractors of text-based documents, parsed in
// Go without external programs: text (plain text and source files), csv,
// json, xml, html, email (.eml and .mbox), fdx (Final Draft scripts) and
// dbf (dBASE tables). Each lives in its own file and registers itself from
// its init function; extractors/families links the package.
//
// Every extractor reports the words of its file under "text" (a declared
// text field, searched as words and highlighted) capped at doctext.MaxText
// (256 KiB of UTF-8), with "text_truncated": true when the file had more:
// that cap is documented, not a fault of the file. Input is read through
// caps as well (see each extractor's constants), so that a file of any
// size costs bounded memory and the time its extractor's limit allows:
// text, csv, dbf and mailboxes are streamed whole; json, xml, fdx, html
// and a single .eml parse at most 64 MiB, and a larger file is refused
// with the error "document too large: ..." (deterministic, nothing kept)
// rather than described from its first part. xml and fdx refuse a
// document type declaration made to attack XML parsers (an external
// entity, an entity whose value refers to another: XXE, billion laughs)
// with "external entity refused: ..." or "entity expansion refused: ...";
// no entity a DTD declares is ever fetched or expanded. Accept takes a file by the MIME type mime_type detected or
// by its extension, so the other files of a harvest cost nothing; the text
// extractor leaves the types another extractor of this package handles to
// that one, so that a CSV's or a page's words are not indexed twice.
//
// Bare-tool equivalents, for benchmarks: text ~ `iconv -f ENC -t UTF-8 FILE`
// and `wc -l`; csv ~ `python3 -c 'import csv,sys; csv.Sniffer()...'`;
// json ~ `jq -r '.. | strings' FILE`; xml ~ `xmllint --noent --nonet`
// without entities (`xmlstarlet sel -t -v //text()`); html ~
// `html2text`/`lynx -dump`; email ~ `ripmime`/`munpack`; fdx ~ `xmlstarlet`;
// dbf ~ `dbfdump` (shapelib).
package documents
