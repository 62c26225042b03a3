-- The flags of each passkey's authenticator data (SPEC §22: the field's hub
-- keeps them, and `hub import-field` carries them): user present 0x01, user
-- verified 0x04, backup eligible 0x08 (a synced kind of passkey), backed up
-- 0x10 (synced now). Taken at registration and refreshed at each sign-in.
-- NULL for a passkey registered before this column existed, and for the
-- field's passkeys it did not know the flags of: unknown, not "none".
ALTER TABLE passkeys ADD COLUMN flags INTEGER;
