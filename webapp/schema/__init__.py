"""The database: its tables (`models`, the runtime API's in `api_models`, rows kept to be
read again in `kept_models`, the columns a skill and its revisions share in
`skill_columns`) and the engines, sessions and upgrades on them (`db`). Below the store,
which alone writes rows (docs/storage.md)."""
