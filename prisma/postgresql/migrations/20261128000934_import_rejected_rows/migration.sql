-- AlterTable
ALTER TABLE "ImportCheckpoint" ADD COLUMN     "rejectedRows" TEXT NOT NULL DEFAULT '[]';
