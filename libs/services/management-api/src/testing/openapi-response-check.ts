import { openApiResponseChecker } from '@herald/testing';
import { managementOpenApi } from '../openapi/management-openapi';

/** Checks a management response against `/openapi.json` (see openApiResponseChecker). */
export const openApiProblems = openApiResponseChecker(managementOpenApi);
