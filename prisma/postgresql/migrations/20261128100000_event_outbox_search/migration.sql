-- The write path's one statement now keeps the search index too (src/events/outbox.ts):
-- a row of EventOutbox may carry its record's search entry ("searchType" and the entry's
-- columns: written, or replaced, with the record's id), or "searchType" alone (the record
-- was deleted: its entry is removed). Rows are applied in order, so the last event of a
-- record in the statement leaves its entry. The rest is as before: the Event row, and a
-- WebhookDelivery per element of "deliveries".
DROP TRIGGER "EventOutbox_insert" ON "EventOutbox";
DROP VIEW "EventOutbox";

CREATE VIEW "EventOutbox" AS SELECT
    NULL::text AS "id", NULL::text AS "workspaceId", NULL::text AS "type", NULL::text AS "resource", NULL::text AS "recordId",
    NULL::text AS "actor", NULL::text AS "requestId", NULL::text AS "data", NULL::timestamp(3) AS "createdAt", NULL::text AS "payload", NULL::text AS "deliveries",
    NULL::text AS "searchType", NULL::text AS "searchTitle", NULL::text AS "searchSubtitle", NULL::text AS "searchWords", NULL::text AS "searchFields",
    NULL::text AS "searchRecord", NULL::timestamp(3) AS "searchCreatedAt"
WHERE false;

CREATE OR REPLACE FUNCTION "EventOutbox_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "Event" ("id", "workspaceId", "type", "resource", "recordId", "actor", "requestId", "data", "createdAt")
    VALUES (NEW."id", NEW."workspaceId", NEW."type", NEW."resource", NEW."recordId", NEW."actor", NEW."requestId", NEW."data", NEW."createdAt");
    IF NEW."deliveries" IS NOT NULL THEN
        INSERT INTO "WebhookDelivery" ("id", "workspaceId", "endpointId", "eventId", "eventType", "payload", "nextAttemptAt", "createdAt")
        SELECT d ->> 0, NEW."workspaceId", d ->> 1, NEW."id", NEW."type", NEW."payload", NEW."createdAt", NEW."createdAt"
        FROM json_array_elements(NEW."deliveries"::json) AS d;
    END IF;
    IF NEW."searchType" IS NOT NULL AND NEW."searchTitle" IS NULL THEN
        DELETE FROM "SearchEntry" WHERE "id" = NEW."recordId";
    ELSIF NEW."searchType" IS NOT NULL THEN
        INSERT INTO "SearchEntry" ("id", "workspaceId", "type", "title", "subtitle", "words", "fields", "record", "createdAt")
        VALUES (NEW."recordId", NEW."workspaceId", NEW."searchType", NEW."searchTitle", NEW."searchSubtitle", NEW."searchWords", NEW."searchFields", NEW."searchRecord", NEW."searchCreatedAt")
        ON CONFLICT ("id") DO UPDATE SET "type" = excluded."type", "title" = excluded."title", "subtitle" = excluded."subtitle", "words" = excluded."words",
            "fields" = excluded."fields", "record" = excluded."record", "createdAt" = excluded."createdAt";
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER "EventOutbox_insert" INSTEAD OF INSERT ON "EventOutbox" FOR EACH ROW EXECUTE FUNCTION "EventOutbox_insert"();
