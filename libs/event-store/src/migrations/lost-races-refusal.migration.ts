import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';

/** The SQLSTATE an append's statement raises when streams moved past their expected position; their ids are the error's detail, a JSON array. */
export const LOST_RACES_SQLSTATE = 'HR409';

/** The function an append's statement calls with the streams that lost a race (see `EventStore.appendBatch`). */
export const lostRacesRefusal = (schema: string): string => `"${schema}".refuse_lost_races`;

/**
 * A function that fails the statement calling it when it is handed streams: an append
 * sends its events, effects and projections as one transaction in one round trip
 * (StatementBatch), so a lost race must roll the whole of it back from inside, naming
 * the streams that lost so that the caller can decide them again.
 */
export function lostRacesRefusalMigration({ schema }: EventStoreTables): MigrationClass {
  return class LostRacesRefusal1767000000000 implements MigrationInterface {
    name = 'LostRacesRefusal1767000000000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE OR REPLACE FUNCTION ${lostRacesRefusal(schema)}(lost text[]) RETURNS integer LANGUAGE plpgsql AS $$
        BEGIN
          IF cardinality(lost) > 0 THEN
            RAISE EXCEPTION '% stream(s) moved past their expected position', cardinality(lost)
              USING ERRCODE = '${LOST_RACES_SQLSTATE}', DETAIL = array_to_json(lost)::text;
          END IF;
          RETURN 0;
        END $$`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP FUNCTION ${lostRacesRefusal(schema)}(text[])`);
    }
  };
}
