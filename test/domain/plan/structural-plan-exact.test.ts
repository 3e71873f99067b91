import type { PlannedChange } from '../../../src/domain/plan/planned-change';
import type { StateResourceView } from '../../../src/domain/plan/state-view';
import { planStructurally } from '../../../src/domain/plan/structural-plan';
import type { TemplateModel } from '../../../src/domain/template-model';

/** Exact structural plans, field by field: each row read against what Terraform plans for it. */
const cases: [string, TemplateModel, StateResourceView[], 'start' | 'stop' | 'delete', PlannedChange[]][] = [
  [
    'deposed objects after the current one, sorted by their deposed key; a resource no block declares is deleted',
    {
      resources: [ { mode: 'managed', type: 't', name: 'b', file: 'main.tf' } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'b', instances: [ { deposed: 'bb' }, { deposed: 'aa' }, {} ] },
      { mode: 'managed', type: 't', name: 'a', instances: [ {} ] }
    ],
    'start',
    [
      { address: 't.a', mode: 'managed', type: 't', name: 'a', actions: [ 'delete' ], reason: 'delete_because_no_resource_config' },
      { address: 't.b', mode: 'managed', type: 't', name: 'b', actions: [ 'no-op' ] },
      { address: 't.b', mode: 'managed', type: 't', name: 'b', deposed: 'aa', actions: [ 'delete' ] },
      { address: 't.b', mode: 'managed', type: 't', name: 'b', deposed: 'bb', actions: [ 'delete' ] }
    ],
  ],
  [
    'an unknown for_each keeps the string keys of current objects only; a number key is the wrong repetition',
    {
      resources: [ { mode: 'managed', type: 't', name: 'n', file: 'main.tf', forEach: 'unknown' } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'n', instances: [ { index_key: 0 }, { index_key: 'a' }, { index_key: 'z', deposed: 'd' } ] }
    ],
    'start',
    [
      {
        address: 't.n["a"]',
        mode: 'managed',
        type: 't',
        name: 'n',
        index: 'a',
        actions: [ 'no-op' ],
        assumed: 'for_each keys are not literal; kept the keys found in state'
      },
      { address: 't.n["z"]', mode: 'managed', type: 't', name: 'n', index: 'z', deposed: 'd', actions: [ 'delete' ] },
      {
        address: 't.n[0]',
        mode: 'managed',
        type: 't',
        name: 'n',
        index: 0,
        actions: [ 'delete' ],
        reason: 'delete_because_wrong_repetition'
      }
    ],
  ],
  [
    'an unknown count keeps the number keys; a string key is the wrong repetition',
    {
      resources: [ { mode: 'managed', type: 't', name: 'n', file: 'main.tf', count: 'unknown' } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'n', instances: [ { index_key: 1 }, { index_key: 'a' } ] }
    ],
    'start',
    [
      {
        address: 't.n["a"]',
        mode: 'managed',
        type: 't',
        name: 'n',
        index: 'a',
        actions: [ 'delete' ],
        reason: 'delete_because_wrong_repetition'
      },
      {
        address: 't.n[1]',
        mode: 'managed',
        type: 't',
        name: 'n',
        index: 1,
        actions: [ 'no-op' ],
        assumed: 'count is not literal; kept the indexes found in state'
      }
    ],
  ],
  [
    'count = start_count deletes index 0 on a stop',
    {
      resources: [ { mode: 'managed', type: 't', name: 'n', file: 'main.tf', count: { startCountOf: 'data.coder_workspace.me' } } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'n', instances: [ { index_key: 0 } ] }
    ],
    'stop',
    [
      {
        address: 't.n[0]',
        mode: 'managed',
        type: 't',
        name: 'n',
        index: 0,
        actions: [ 'delete' ],
        reason: 'delete_because_count_index'
      }
    ],
  ],
  [
    'count = start_count creates index 0 on a start',
    {
      resources: [ { mode: 'managed', type: 't', name: 'n', file: 'main.tf', count: { startCountOf: 'data.coder_workspace.me' } } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [],
    'start',
    [ { address: 't.n[0]', mode: 'managed', type: 't', name: 'n', index: 0, actions: [ 'create' ] } ],
  ],
  [
    'a block without count takes T.n[0] over as T.n and deletes the rest',
    {
      resources: [ { mode: 'managed', type: 't', name: 'n', file: 'main.tf' } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'n', instances: [ { index_key: 0 }, { index_key: 1 } ] }
    ],
    'start',
    [
      { address: 't.n', mode: 'managed', type: 't', name: 'n', actions: [ 'no-op' ], previousAddress: 't.n[0]' },
      {
        address: 't.n[1]',
        mode: 'managed',
        type: 't',
        name: 'n',
        index: 1,
        actions: [ 'delete' ],
        reason: 'delete_because_wrong_repetition'
      }
    ],
  ],
  [
    'count = 2 takes a key-less T.n over as T.n[0], and a literal count holds on a stop too',
    {
      resources: [ { mode: 'managed', type: 't', name: 'n', file: 'main.tf', count: 2 } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [ { mode: 'managed', type: 't', name: 'n', instances: [ {} ] } ],
    'stop',
    [
      { address: 't.n[0]', mode: 'managed', type: 't', name: 'n', index: 0, actions: [ 'no-op' ], previousAddress: 't.n' },
      { address: 't.n[1]', mode: 'managed', type: 't', name: 'n', index: 1, actions: [ 'create' ] }
    ],
  ],
  [
    'count = 2 keeps [0] and creates [1] (index 0 is no implied move for index 1)',
    {
      resources: [ { mode: 'managed', type: 't', name: 'n', file: 'main.tf', count: 2 } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'n', instances: [ { index_key: 0 } ] }
    ],
    'start',
    [
      { address: 't.n[0]', mode: 'managed', type: 't', name: 'n', index: 0, actions: [ 'no-op' ] },
      { address: 't.n[1]', mode: 'managed', type: 't', name: 'n', index: 1, actions: [ 'create' ] }
    ],
  ],
  [
    'a for_each block deletes the key-less and the number-keyed objects',
    {
      resources: [
        { mode: 'managed', type: 't', name: 'n', file: 'main.tf', forEach: { keys: [ 'a' ] } }
      ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'n', instances: [ { index_key: 0 }, {} ] }
    ],
    'start',
    [
      { address: 't.n', mode: 'managed', type: 't', name: 'n', actions: [ 'delete' ], reason: 'delete_because_wrong_repetition' },
      { address: 't.n["a"]', mode: 'managed', type: 't', name: 'n', index: 'a', actions: [ 'create' ] },
      {
        address: 't.n[0]',
        mode: 'managed',
        type: 't',
        name: 'n',
        index: 0,
        actions: [ 'delete' ],
        reason: 'delete_because_wrong_repetition'
      }
    ],
  ],
  [
    'moved blocks: only root, key-less, same-type, same-mode moves to a block whose source has no block and no state of its own',
    {
      resources: [
        { mode: 'managed', type: 't', name: 'b', file: 'main.tf' },
        { mode: 'managed', type: 't', name: 'c', file: 'main.tf' },
        { mode: 'managed', type: 't', name: 'd', file: 'main.tf' },
        { mode: 'managed', type: 't', name: 'a2', file: 'main.tf' },
        { mode: 'managed', type: 'u', name: 'e', file: 'main.tf' },
        { mode: 'managed', type: 't', name: 'm', file: 'main.tf' }
      ],
      removed: [],
      moved: [
        { from: 'module.x.t.q', to: 't.b', file: 'm.tf' },
        { from: 't.q[0]', to: 't.c', file: 'm.tf' },
        { from: 't.a2', to: 't.d', file: 'm.tf' },
        { from: 't.q2', to: 't.a2', file: 'm.tf' },
        { from: 't.q3', to: 'u.e', file: 'm.tf' },
        { from: 'bad', to: 't.b', file: 'm.tf' },
        { from: 'data.t.m', to: 't.m', file: 'm.tf' }
      ],
      modules: [],
      protectedAddresses: []
    },
    [
      { module: 'module.x', mode: 'managed', type: 't', name: 'q', instances: [ {} ] },
      { mode: 'managed', type: 't', name: 'q', instances: [ { index_key: 0 } ] },
      { mode: 'managed', type: 't', name: 'a2', instances: [ {} ] },
      { mode: 'managed', type: 't', name: 'q2', instances: [ {} ] },
      { mode: 'managed', type: 't', name: 'q3', instances: [ {} ] },
      { mode: 'data', type: 't', name: 'm', instances: [ {} ] }
    ],
    'start',
    [
      {
        address: 'module.x.t.q',
        module: 'module.x',
        mode: 'managed',
        type: 't',
        name: 'q',
        actions: [ 'delete' ],
        reason: 'delete_because_no_module'
      },
      { address: 't.a2', mode: 'managed', type: 't', name: 'a2', actions: [ 'no-op' ] },
      { address: 't.b', mode: 'managed', type: 't', name: 'b', actions: [ 'create' ] },
      { address: 't.c', mode: 'managed', type: 't', name: 'c', actions: [ 'create' ] },
      { address: 't.d', mode: 'managed', type: 't', name: 'd', actions: [ 'create' ] },
      { address: 't.m', mode: 'managed', type: 't', name: 'm', actions: [ 'create' ] },
      { address: 't.q2', mode: 'managed', type: 't', name: 'q2', actions: [ 'delete' ], reason: 'delete_because_no_resource_config' },
      { address: 't.q3', mode: 'managed', type: 't', name: 'q3', actions: [ 'delete' ], reason: 'delete_because_no_resource_config' },
      {
        address: 't.q[0]',
        mode: 'managed',
        type: 't',
        name: 'q',
        index: 0,
        actions: [ 'delete' ],
        reason: 'delete_because_no_resource_config'
      },
      { address: 'u.e', mode: 'managed', type: 'u', name: 'e', actions: [ 'create' ] }
    ],
  ],
  [
    'a followed move gives previous addresses to kept and deleted instances',
    {
      resources: [ { mode: 'managed', type: 't', name: 'b', file: 'main.tf', count: 1 } ],
      removed: [],
      moved: [ { from: 't.a', to: 't.b', file: 'm.tf' } ],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'a', instances: [ { index_key: 0 }, { index_key: 1 } ] }
    ],
    'start',
    [
      { address: 't.b[0]', mode: 'managed', type: 't', name: 'b', index: 0, actions: [ 'no-op' ], previousAddress: 't.a[0]' },
      {
        address: 't.b[1]',
        mode: 'managed',
        type: 't',
        name: 'b',
        index: 1,
        actions: [ 'delete' ],
        reason: 'delete_because_count_index',
        previousAddress: 't.a[1]'
      }
    ],
  ],
  [
    'removed blocks forget (destroy = false) current objects only; declared modules are assumed unchanged; undeclared ones are deleted',
    {
      resources: [],
      removed: [
        { from: 't.n', destroy: false, file: 'g.tf' },
        { from: 'module.m', destroy: false, file: 'g.tf' },
        { from: 'module.k', destroy: true, file: 'g.tf' }
      ],
      moved: [],
      modules: [ 'm', 'k', 'j' ],
      protectedAddresses: []
    },
    [
      { mode: 'managed', type: 't', name: 'n', instances: [ {}, { deposed: 'dd' } ] },
      { module: 'module.m[0]', mode: 'managed', type: 't', name: 'x', instances: [ { index_key: 'a' } ] },
      { module: 'module.k', mode: 'managed', type: 't', name: 'x', instances: [ {} ] },
      { module: 'module.j', mode: 'managed', type: 't', name: 'x', instances: [ {} ] },
      { module: 'module.gone', mode: 'managed', type: 't', name: 'x', instances: [ {} ] },
      { mode: 'managed', type: 't', name: 'orphan', instances: [ { deposed: 'd2' } ] }
    ],
    'start',
    [
      {
        address: 'module.gone.t.x',
        module: 'module.gone',
        mode: 'managed',
        type: 't',
        name: 'x',
        actions: [ 'delete' ],
        reason: 'delete_because_no_module'
      },
      {
        address: 'module.j.t.x',
        module: 'module.j',
        mode: 'managed',
        type: 't',
        name: 'x',
        actions: [ 'no-op' ],
        assumed: 'module.j is not modelled; assumed unchanged'
      },
      {
        address: 'module.k.t.x',
        module: 'module.k',
        mode: 'managed',
        type: 't',
        name: 'x',
        actions: [ 'delete' ],
        reason: 'delete_because_no_resource_config'
      },
      {
        address: 'module.m[0].t.x["a"]',
        module: 'module.m[0]',
        mode: 'managed',
        type: 't',
        name: 'x',
        index: 'a',
        actions: [ 'forget' ],
        reason: 'delete_because_no_resource_config'
      },
      { address: 't.n', mode: 'managed', type: 't', name: 'n', actions: [ 'forget' ], reason: 'delete_because_no_resource_config' },
      { address: 't.n', mode: 'managed', type: 't', name: 'n', deposed: 'dd', actions: [ 'delete' ] },
      { address: 't.orphan', mode: 'managed', type: 't', name: 'orphan', deposed: 'd2', actions: [ 'delete' ] }
    ],
  ],
  [
    'a data block reads each instance it keeps',
    {
      resources: [ { mode: 'data', type: 'd', name: 'n', count: 'unknown', file: 'x' } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { mode: 'data', type: 'd', name: 'n', instances: [ { index_key: 2 } ] }
    ],
    'start',
    [
      {
        address: 'data.d.n[2]',
        mode: 'data',
        type: 'd',
        name: 'n',
        index: 2,
        actions: [ 'read' ],
        assumed: 'count is not literal; kept the indexes found in state'
      }
    ],
  ],
  [
    'a workspace delete destroys every managed object, deposed ones with their key, and no data source',
    {
      resources: [ { mode: 'managed', type: 't', name: 'n', file: 'main.tf' } ],
      removed: [],
      moved: [],
      modules: [],
      protectedAddresses: []
    },
    [
      { module: 'module.m', mode: 'managed', type: 't', name: 'x', instances: [ { index_key: 3, deposed: 'q' } ] },
      { mode: 'data', type: 'd', name: 'n', instances: [ {} ] }
    ],
    'delete',
    [
      {
        address: 'module.m.t.x[3]',
        module: 'module.m',
        mode: 'managed',
        type: 't',
        name: 'x',
        index: 3,
        deposed: 'q',
        actions: [ 'delete' ]
      }
    ],
  ],
];

describe('planStructurally, exact plans', () => {
  it.each(cases)('%s', (_, model, state, transition, expected) => {
    expect(planStructurally(model, state, transition)).toEqual(expected);
  });
});
