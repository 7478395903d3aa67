export { SeededRandom } from '@herald/testing';
