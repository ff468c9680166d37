import type { RegisterCommand } from '../context.js';
import { MacError } from '../../errors.js';

// Placeholder registration: replaced by the command's implementation.
export const register: RegisterCommand = (program) => {
  program
    .command('serve')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new MacError('mac serve is not built yet');
    });
};
