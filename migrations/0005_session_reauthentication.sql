-- When the session's holder last proved who they are (a password or a second
-- factor), so that adding or removing a factor and creating an API key can ask
-- for a recent proof (SPEC §10.1). Sessions stored before this column existed
-- carry no such time: their holders confirm their password once more before
-- those changes.
ALTER TABLE sessions ADD COLUMN authenticated_at INTEGER NOT NULL DEFAULT 0;

-- The session POST /auth/setup issued to the admin who created the hub: the
-- only password-level session that may choose the first MFA policy.
ALTER TABLE sessions ADD COLUMN from_setup INTEGER NOT NULL DEFAULT 0 CHECK (from_setup IN (0, 1));
