package notes

import (
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/views"
)

// NoteView shows a note beside get_note's, create_note's and update_note's
// results, in a host that speaks the MCP Apps extension: its title and
// text, and a button archiving it through update_note (which asks for
// confirmation, since archiving cannot be undone).
var NoteView = &registry.View{
	URI:         "ui://notes/note",
	Name:        "note",
	Description: "A note: its title and text, with a button to archive it.",
	HTML: views.Document("en", "Note", noteStyle, `<main><h1 id="title"></h1><p id="body"></p>`+
		`<p><button id="archive" hidden>Archive</button> <span id="said" role="status"></span></p></main>`, noteScript),
}

const noteStyle = `body{font:15px/1.4 system-ui,sans-serif;margin:0;padding:12px;background:Canvas;color:CanvasText}
[data-theme=dark]{color-scheme:dark}[data-theme=light]{color-scheme:light}
h1{font-size:18px;margin:0 0 6px}#body{white-space:pre-wrap}`

// noteScript draws the note the host hands over. Archiving asks the host
// to call update_note with the version shown: a stale one is refused, and
// the first answer is the confirmation request, which the view shows and
// confirms only when the person presses again.
const noteScript = `var note = null, token = '';
var $ = function (id) { return document.getElementById(id); };
function draw(n) {
  note = n; token = '';
  $('title').textContent = n.title; $('body').textContent = n.body;
  $('archive').hidden = n.archived; $('archive').textContent = 'Archive';
}
view.on('result', function (r) { var n = r && r.structuredContent; if (n && n.id) draw(n); });
$('archive').addEventListener('click', function () {
  var args = { id: note.id, archived: true, version: note.version };
  if (token) args.confirmationToken = token;
  view.call('update_note', args).then(function (r) {
    var s = r.structuredContent || {};
    if (s.confirmation) { token = s.confirmation.confirmationToken; $('said').textContent = s.confirmation.impact ? s.confirmation.impact.summary || '' : ''; $('archive').textContent = 'Archive for good'; return; }
    if (r.isError) { $('said').textContent = s.detail || 'refused'; return; }
    draw(s); $('said').textContent = 'Archived.';
  });
});`
