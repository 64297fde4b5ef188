-- The database roles of the compose deployment, made once by the superuser when PostgreSQL initialises its data volume
-- (init-roles.sh names the roles and databases with psql variables; the passwords come from the environment):
--   owner_role     owns the application database and its schema: the one-shot migrate service alone logs in with it
--   app_role       the API and the workers: reads and writes rows and sequences, cannot create, alter or drop anything
--   temporal_role  owns Temporal's two databases and nothing else
-- None of them is a superuser or may create roles or databases.
\set ON_ERROR_STOP on
\getenv owner_password POSTGRES_OWNER_PASSWORD
\getenv app_password POSTGRES_APP_PASSWORD
\getenv temporal_password POSTGRES_TEMPORAL_PASSWORD

CREATE ROLE :"owner_role" LOGIN PASSWORD :'owner_password';
CREATE ROLE :"app_role" LOGIN PASSWORD :'app_password';
CREATE ROLE :"temporal_role" LOGIN PASSWORD :'temporal_password';

-- Only the application's roles connect to its database (PUBLIC may connect to any database by default).
ALTER DATABASE :"app_database" OWNER TO :"owner_role";
REVOKE ALL ON DATABASE :"app_database" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"app_database" TO :"app_role";

-- Temporal's server creates its schema in databases it owns (auto-setup runs with SKIP_DB_CREATE).
CREATE DATABASE :"temporal_database" OWNER :"temporal_role";
CREATE DATABASE :"temporal_visibility_database" OWNER :"temporal_role";
REVOKE ALL ON DATABASE :"temporal_database" FROM PUBLIC;
REVOKE ALL ON DATABASE :"temporal_visibility_database" FROM PUBLIC;

\connect :"app_database"
ALTER SCHEMA public OWNER TO :"owner_role";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app_role";
-- Every table and sequence the owner creates, in this migration or a later one, is usable by the application at once.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO :"app_role";
