import type { RegisterCommand } from '../context.js';
import { MacError } from '../../errors.js';

// Placeholder registration: replaced by the command's implementation.
export const register: RegisterCommand = (program) => {
  program
    .command('schemas')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new MacError('mac schemas is not built yet');
    });
};
