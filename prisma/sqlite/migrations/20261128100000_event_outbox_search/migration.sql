-- The write path's one statement now keeps the search index too (src/events/outbox.ts):
-- a row of EventOutbox may carry its record's search entry ("searchType" and the entry's
-- columns: written, or replaced, with the record's id), or "searchType" alone (the record
-- was deleted: its entry is removed). Rows are applied in order, so the last event of a
-- record in the statement leaves its entry. The rest is as before: the Event row, and a
-- WebhookDelivery per element of "deliveries".
DROP TRIGGER "EventOutbox_insert";
DROP VIEW "EventOutbox";

CREATE VIEW "EventOutbox" AS SELECT
    NULL AS "id", NULL AS "workspaceId", NULL AS "type", NULL AS "resource", NULL AS "recordId",
    NULL AS "actor", NULL AS "requestId", NULL AS "data", NULL AS "createdAt", NULL AS "payload", NULL AS "deliveries",
    NULL AS "searchType", NULL AS "searchTitle", NULL AS "searchSubtitle", NULL AS "searchWords", NULL AS "searchFields",
    NULL AS "searchRecord", NULL AS "searchCreatedAt"
WHERE 0;

CREATE TRIGGER "EventOutbox_insert" INSTEAD OF INSERT ON "EventOutbox" BEGIN
    INSERT INTO "Event" ("id", "workspaceId", "type", "resource", "recordId", "actor", "requestId", "data", "createdAt")
    VALUES (NEW."id", NEW."workspaceId", NEW."type", NEW."resource", NEW."recordId", NEW."actor", NEW."requestId", NEW."data", NEW."createdAt");
    INSERT INTO "WebhookDelivery" ("id", "workspaceId", "endpointId", "eventId", "eventType", "payload", "nextAttemptAt", "createdAt")
    SELECT json_extract(d."value", '$[0]'), NEW."workspaceId", json_extract(d."value", '$[1]'), NEW."id", NEW."type", NEW."payload", NEW."createdAt", NEW."createdAt"
    FROM json_each(NEW."deliveries") AS d;
    DELETE FROM "SearchEntry" WHERE NEW."searchType" IS NOT NULL AND NEW."searchTitle" IS NULL AND "id" = NEW."recordId";
    INSERT INTO "SearchEntry" ("id", "workspaceId", "type", "title", "subtitle", "words", "fields", "record", "createdAt")
    SELECT NEW."recordId", NEW."workspaceId", NEW."searchType", NEW."searchTitle", NEW."searchSubtitle", NEW."searchWords", NEW."searchFields", NEW."searchRecord", NEW."searchCreatedAt"
    WHERE NEW."searchType" IS NOT NULL AND NEW."searchTitle" IS NOT NULL
    ON CONFLICT ("id") DO UPDATE SET "type" = excluded."type", "title" = excluded."title", "subtitle" = excluded."subtitle", "words" = excluded."words",
        "fields" = excluded."fields", "record" = excluded."record", "createdAt" = excluded."createdAt";
END;
