-- Live updates (API.md section 10): each statement that adds events notifies their ids on
-- the channel `salesgraph_events`, at commit (a rolled-back transaction notifies nothing),
-- whichever process, instance or command wrote them. A payload is the workspace id and up
-- to 200 event ids, space-separated (PostgreSQL caps a payload at 8,000 bytes).
CREATE FUNCTION "Event_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  batch record;
  chunk integer;
BEGIN
  FOR batch IN SELECT "workspaceId", array_agg("id" ORDER BY "id") AS ids FROM new_rows GROUP BY "workspaceId" LOOP
    FOR chunk IN 0 .. (array_length(batch.ids, 1) - 1) / 200 LOOP
      PERFORM pg_notify('salesgraph_events', batch."workspaceId" || ' ' || array_to_string(batch.ids[chunk * 200 + 1 : chunk * 200 + 200], ' '));
    END LOOP;
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Event_notify" AFTER INSERT ON "Event" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "Event_notify"();
