"""What the pages show, built as plain data: no Flask here (as Flask keeps its `sansio`
apart), so each module is tested without an app context. A module is named after its
page (`views.agent_preview` beside `web.agent_preview`); URLs come in as functions."""
