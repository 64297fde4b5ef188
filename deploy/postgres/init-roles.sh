#!/bin/sh
# Runs once, when the postgres image initialises an empty data volume (mounted into /docker-entrypoint-initdb.d):
# the roles and databases of roles.sql under the names the compose services use.
set -eu
psql --no-psqlrc --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v app_database="$POSTGRES_DB" \
  -v owner_role=genmedia_owner \
  -v app_role=genmedia_app \
  -v temporal_role=temporal \
  -v temporal_database=temporal \
  -v temporal_visibility_database=temporal_visibility \
  -f /etc/genmedia/postgres-roles.sql
