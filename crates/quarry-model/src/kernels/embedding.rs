//! The embedding lookup that trains. Forward it is candle's `index_select`; backward, candle
//! adds every looked-up row into a zeroed table with `index_add`, whose CUDA kernel gives one
//! thread to each column and walks all the ids in it (384 threads for a batch of MiniLM,
//! 2 ms a table on an H100). Here the ids are grouped by table row once, on the host, when the
//! lookup runs, and the backward pass sums each (table row, column) in its own thread
//! ([`GroupedRowSum`]), in the ids' order from zero as `index_add` does: the same bits, on
//! every device (but for a lookup that reads one row only, on CUDA, see `Lookup::bwd`).

use candle_core::{backend::BackendStorage, CpuStorage, CustomOp1, CustomOp2, DType, Layout, Result, Shape, Tensor};

/// `table.index_select(ids, 0)` (`ids` flat u32) as one graph node whose backward pass is
/// [`GroupedRowSum`] for f32 tables, candle's own `index_add` for the others. The ids are
/// grouped only for a table that records gradients: grouping reads them back to the host,
/// which on a GPU waits for all the work queued before it, so an inference pass never does.
pub(crate) fn lookup(table: &Tensor, ids: &Tensor) -> Result<Tensor> {
    let trains = table.track_op() && table.dtype() == DType::F32 && ids.elem_count() > 0;
    let groups = if trains { Some(Groups::of(ids)?) } else { None };
    table.apply_op2(ids, Lookup { groups })
}

/// The rows of a lookup grouped by the table row they read.
#[derive(Debug, Clone)]
struct Groups {
    /// The table row of each group, ascending.
    unique_ids: Tensor,
    /// Group `g`'s rows are `order[offsets[g]..offsets[g + 1]]` (`groups + 1` entries).
    offsets: Tensor,
    /// Lookup rows sorted by table row, ascending within a group.
    order: Tensor,
    /// Number of groups.
    count: usize,
    /// The one table row every lookup read, when they all read the same (token types).
    single: Option<u32>,
}

impl Groups {
    /// Groups `ids` (flat u32, on any device) on the host and puts the result on their device.
    fn of(ids: &Tensor) -> Result<Self> {
        let host = ids.to_vec1::<u32>()?;
        let (unique_ids, offsets, order) = group_rows(&host);
        let device = ids.device();
        Ok(Groups {
            count: unique_ids.len(),
            single: if unique_ids.len() == 1 { unique_ids.first().copied() } else { None },
            unique_ids: Tensor::new(unique_ids, device)?,
            offsets: Tensor::new(offsets, device)?,
            order: Tensor::new(order, device)?,
        })
    }
}

/// `(unique ids ascending, offsets, rows ordered by id and then by position)` of `ids`.
pub(crate) fn group_rows(ids: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut order: Vec<u32> = (0..ids.len() as u32).collect();
    order.sort_by_key(|&row| ids[row as usize]); // stable: positions stay ascending
    let mut unique_ids = Vec::new();
    let mut offsets = Vec::new();
    for (k, &row) in order.iter().enumerate() {
        let id = ids[row as usize];
        if unique_ids.last() != Some(&id) {
            unique_ids.push(id);
            offsets.push(k as u32);
        }
    }
    offsets.push(order.len() as u32);
    (unique_ids, offsets, order)
}

/// The lookup as a graph node: `(table, ids) -> rows`.
struct Lookup {
    /// The grouping of `ids` for the backward pass; `None` when it falls back to `index_add`.
    groups: Option<Groups>,
}

impl CustomOp2 for Lookup {
    fn name(&self) -> &'static str {
        "embedding-lookup"
    }

    fn cpu_fwd(&self, table: &CpuStorage, tl: &Layout, ids: &CpuStorage, il: &Layout) -> Result<(CpuStorage, Shape)> {
        Ok((table.index_select(ids, tl, il, 0)?, looked_up_shape(tl, il)?))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        table: &candle_core::CudaStorage,
        tl: &Layout,
        ids: &candle_core::CudaStorage,
        il: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        Ok((table.index_select(ids, tl, il, 0)?, looked_up_shape(tl, il)?))
    }

    fn bwd(
        &self,
        table: &Tensor,
        ids: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let grad_table = match &self.groups {
            // Every lookup read one row (token types): on CUDA its gradient is one product with
            // ones, where the grouped sum would walk every row in one thread per column
            // (0.2 ms of a MiniLM step on an H100). The sum's order differs, so its rounding
            // may differ from the CPU's in the last bits.
            Some(Groups { single: Some(id), .. }) if grad.device().is_cuda() && grad.dtype() == DType::F32 => {
                let row = super::ops::column_sums(grad, table.dim(1)?)?.unsqueeze(0)?;
                table.zeros_like()?.index_add(&Tensor::new(&[*id], grad.device())?, &row, 0)?
            }
            Some(groups) if grad.dtype() == DType::F32 => {
                grad.contiguous()?.apply_op1_no_bwd(&GroupedRowSum { groups: groups.clone(), rows: table.dim(0)? })?
            }
            _ => table.zeros_like()?.index_add(&ids.contiguous()?, grad, 0)?,
        };
        Ok((Some(grad_table), None))
    }
}

/// `(ids, columns)` of a lookup into a `(rows, columns)` table.
fn looked_up_shape(table: &Layout, ids: &Layout) -> Result<Shape> {
    let (_, columns) = table.shape().dims2()?;
    Ok(Shape::from((ids.shape().elem_count(), columns)))
}

/// The table gradient of a lookup: group `g`'s rows of the incoming gradient summed into
/// table row `unique_ids[g]`, every other row zero (`cuda/quarry.cu`'s `grouped_row_sum_f32`
/// is this loop, one thread per output element).
struct GroupedRowSum {
    groups: Groups,
    /// Rows of the table.
    rows: usize,
}

impl CustomOp1 for GroupedRowSum {
    fn name(&self) -> &'static str {
        "grouped-row-sum"
    }

    fn cpu_fwd(&self, grad: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let grad = super::ops::contiguous_f32(grad, layout, self.name())?;
        let cols = layout.shape().dims2()?.1;
        let unique_ids = self.groups.unique_ids.to_vec1::<u32>()?;
        let offsets = self.groups.offsets.to_vec1::<u32>()?;
        let order = self.groups.order.to_vec1::<u32>()?;
        debug_assert_eq!(unique_ids.len(), self.groups.count);
        let mut out = vec![0f32; self.rows * cols];
        for (g, &id) in unique_ids.iter().enumerate() {
            let target = &mut out[id as usize * cols..][..cols];
            for &row in &order[offsets[g] as usize..offsets[g + 1] as usize] {
                for (o, &x) in target.iter_mut().zip(&grad[row as usize * cols..][..cols]) {
                    *o += x;
                }
            }
        }
        Ok((CpuStorage::F32(out), Shape::from((self.rows, cols))))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(&self, grad: &candle_core::CudaStorage, layout: &Layout) -> Result<(candle_core::CudaStorage, Shape)> {
        use super::cuda_kernels::{elementwise, MODULE, PTX};
        use candle_core::cuda_backend::cudarc::driver::PushKernelArg;
        use candle_core::cuda_backend::WrapErr;
        use candle_core::{bail, Storage};

        let (Some((start, end)), Ok((_, cols))) = (layout.contiguous_offsets(), layout.shape().dims2()) else {
            bail!("grouped-row-sum: the gradient must be a contiguous matrix")
        };
        let device = grad.device().clone();
        let grad = grad.as_cuda_slice::<f32>()?.slice(start..end);
        let (unique_ids, _) = self.groups.unique_ids.storage_and_layout();
        let (offsets, _) = self.groups.offsets.storage_and_layout();
        let (order, _) = self.groups.order.storage_and_layout();
        let (Storage::Cuda(unique_ids), Storage::Cuda(offsets), Storage::Cuda(order)) =
            (&*unique_ids, &*offsets, &*order)
        else {
            bail!("grouped-row-sum: the lookup's groups are not on the gradient's device")
        };
        let out = device.alloc_zeros::<f32>(self.rows * cols)?;
        let func = device.get_or_load_custom_func("grouped_row_sum_f32", MODULE, PTX)?;
        let mut builder = func.builder();
        builder.arg(&grad);
        builder.arg(unique_ids.as_cuda_slice::<u32>()?);
        builder.arg(offsets.as_cuda_slice::<u32>()?);
        builder.arg(order.as_cuda_slice::<u32>()?);
        builder.arg(&out);
        candle_core::builder_arg!(builder, self.groups.count as u32, cols as u32);
        // SAFETY: the arguments match the kernel's signature; every index it reads is within the
        // buffers above (offsets and order come from `group_rows` over `cols`-wide rows).
        unsafe { builder.launch(elementwise(self.groups.count * cols)) }.w()?;
        Ok((candle_core::CudaStorage::wrap_cuda_slice(out, device), Shape::from((self.rows, cols))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    #[test]
    fn groups_rows_by_id_keeping_their_order() {
        let (unique, offsets, order) = group_rows(&[5, 2, 5, 0, 2, 5]);
        assert_eq!(unique, [0, 2, 5]);
        assert_eq!(offsets, [0, 1, 3, 6]);
        assert_eq!(order, [3, 1, 4, 0, 2, 5]);
        assert_eq!(group_rows(&[]), (vec![], vec![0], vec![]));
    }

    #[test]
    fn lookup_gives_index_select_and_index_add_bit_for_bit() {
        let dev = Device::Cpu;
        let table = Var::new(&[[1f32, 2.], [3., 4.], [5., 6.], [7., 8.]], &dev).unwrap();
        let ids = Tensor::new(&[2u32, 0, 2, 2, 1], &dev).unwrap();
        let rows = lookup(table.as_tensor(), &ids).unwrap();
        let reference = table.as_tensor().index_select(&ids, 0).unwrap();
        assert_eq!(rows.to_vec2::<f32>().unwrap(), reference.to_vec2::<f32>().unwrap());
        // Weights that make the sums round differently in different orders.
        let w = Tensor::new(&[[0.1f32, 1e8], [0.7, -3.3], [1e-3, 0.3], [7.1, -1e8], [0.2, 0.9]], &dev).unwrap();
        let ours = (rows * &w).unwrap().sum_all().unwrap().backward().unwrap();
        let theirs = (reference * &w).unwrap().sum_all().unwrap().backward().unwrap();
        let ours = ours.get(table.as_tensor()).unwrap().to_vec2::<f32>().unwrap();
        let theirs = theirs.get(table.as_tensor()).unwrap().to_vec2::<f32>().unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(ours[3], [0.0, 0.0], "a row no id read has a zero gradient");
        assert_eq!(ours[1], [0.2, 0.9]);
        assert_eq!(ours[2][1], 0.0, "1e8 + 0.3 - 1e8 summed in the ids' order");
    }

    #[test]
    fn other_dtypes_fall_back_to_index_add() {
        let dev = Device::Cpu;
        let table = Var::new(&[[1f64, 2.], [3., 4.]], &dev).unwrap();
        let ids = Tensor::new(&[1u32, 1, 0], &dev).unwrap();
        let grads = lookup(table.as_tensor(), &ids).unwrap().sum_all().unwrap().backward().unwrap();
        assert_eq!(grads.get(table.as_tensor()).unwrap().to_vec2::<f64>().unwrap(), [[1.0, 1.0], [2.0, 2.0]]);
    }
}
