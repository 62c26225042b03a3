-- What `hub import-field` brought over from the field's hub (SPEC §22): the
-- field's row id of each user, agent, passkey and API key beside the row it
-- became here. A second import skips what is listed, even after a user has
-- signed in and their password hash was replaced, and a row that is here but
-- not listed is told apart from one the import made.
CREATE TABLE field_import (
  kind TEXT NOT NULL,
  field_id INTEGER NOT NULL,
  hub_id INTEGER NOT NULL,
  imported_at INTEGER NOT NULL,
  PRIMARY KEY (kind, field_id)
);
