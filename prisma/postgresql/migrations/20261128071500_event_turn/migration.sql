-- A write's turn among its workspace's writers (src/events/deliveries.ts, `takeTurn`): a
-- transaction-scoped advisory lock, held to the commit, then the workspace's newest event
-- id. PL/pgSQL so that the read takes its snapshot after the lock is held (a statement's
-- own snapshot is older than any lock it waits for): it sees the last writer's commit, and
-- the write's event ids are made above it, so that they rise in commit order.
CREATE FUNCTION "Event_turn"(workspace TEXT) RETURNS TEXT LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('salesgraph events ' || workspace, 0));
  RETURN (SELECT max("id") FROM "Event" WHERE "workspaceId" = workspace);
END $$;
