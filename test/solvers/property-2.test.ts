// The property test of issue 18, part 2 of 4 (the solvers are dealt by cost: property-lib.ts).
import { propertyShard } from './property-lib.ts';

propertyShard(1, 4);
